import { ActionsSchema, describeAction, type Action, type ApiConfig } from '../config/index.js';
import { PagejsonError } from '../shared/index.js';

/**
 * `pagejson edit <apiId> --set actions=[…]` and the dashboard's actions editor (docs/actions.md): the whole list
 * as JSON, checked against the action schema at once so that a typo is refused with its place and the nearest
 * key; `--set actions=off` removes them. Rules across the config (scraper 3, variables) are validate's, run
 * before any save.
 */
const OFF = ['', 'null', 'off', 'none', '[]'];
const EXAMPLE = '--set \'actions=[{"ifExists":"#consent","then":[{"click":"#accept"}]},{"wait":".results li"}]\'';

function usage(message: string, hint: string): PagejsonError {
  return new PagejsonError('USAGE', message, { hint });
}

export function setActions(config: ApiConfig, value: string): ApiConfig {
  if (OFF.includes(value.trim().toLowerCase())) {
    const { actions: _old, ...rest } = config;
    return rest;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw usage(`actions must be a JSON list of steps, got ${value.slice(0, 80)}`, `write ${EXAMPLE}`);
  }
  const checked = ActionsSchema.safeParse(Array.isArray(parsed) ? parsed : [parsed]);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    const at = issue.path.map((segment) => (typeof segment === 'number' ? `[${segment}]` : `.${String(segment)}`)).join('');
    throw usage(
      `actions${at}: ${issue.message}`,
      `each step is one of click, wait, waitMs, type+text, press, select+value, scroll, ifExists+then (docs/actions.md); e.g. ${EXAMPLE}`,
    );
  }
  return { ...config, actions: checked.data };
}

function listed(actions: readonly Action[]): string {
  return actions.map((step, index) => `${index + 1}. ${describeAction(step)}`).join('; ');
}

/** The change of a config's actions, in words (describe-changes.ts). */
export function actionChanges(before: ApiConfig, after: ApiConfig): Array<{ kind: 'setting'; subject: string; text: string }> {
  const old = before.actions ?? [];
  const now = after.actions ?? [];
  if (JSON.stringify(old) === JSON.stringify(now)) return [];
  const text =
    now.length === 0 ? 'actions removed' : old.length === 0 ? `actions added: ${listed(now)}` : `actions changed to: ${listed(now)}`;
  return [{ kind: 'setting', subject: 'actions', text }];
}
