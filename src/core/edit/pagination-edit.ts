import {
  DEFAULT_MAX_PAGES,
  PAGINATION_KINDS,
  PaginationSchema,
  describePagination,
  type ApiConfig,
  type PaginationKind,
  type PaginationSettings,
} from '../config/index.js';
import { PagejsonError } from '../shared/index.js';

/**
 * `pagejson edit <apiId> --set pagination.next=…` and the other pagination keys, and the dashboard's pagination
 * editor (docs/pagination.md). Setting a kind (`next`, `variable`, `loadMore`, `scroll`) replaces the kind
 * there was and keeps the limits; `--set pagination=off` removes pagination, `--set pagination={…}` sets it
 * whole. Rules across the config (scraper 3 for loadMore and scroll, the page variable in the url, the list
 * field) are validate's, run before any save.
 */
const OFF = ['', 'null', 'off', 'none', 'false'];
const EXAMPLE = "--set pagination.next='a[rel=next]' or --set pagination.variable=page";

function usage(message: string, hint: string): PagejsonError {
  return new PagejsonError('USAGE', message, { hint });
}

const isOff = (value: string): boolean => OFF.includes(value.trim().toLowerCase());

function withoutPagination(config: ApiConfig): ApiConfig {
  const { pagination: _old, ...rest } = config;
  return rest;
}

/** The pagination checked as the schema checks it, or a usage error naming the key and the nearest fix. */
function checked(config: ApiConfig, value: unknown): ApiConfig {
  const result = PaginationSchema.safeParse(value);
  if (result.success) return { ...config, pagination: result.data };
  const issue = result.error.issues[0]!;
  const at = issue.path.map((segment) => `.${String(segment)}`).join('');
  throw usage(
    `pagination${at}: ${issue.code === 'unrecognized_keys' ? `unknown key ${issue.keys.map((key) => `"${key}"`).join(', ')}` : issue.message}`,
    `keys: ${[...PAGINATION_KINDS, 'start', 'maxPages', 'maxItems', 'list', 'key'].join(', ')}; e.g. ${EXAMPLE}`,
  );
}

function setWhole(config: ApiConfig, value: string): ApiConfig {
  if (isOff(value)) return withoutPagination(config);
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw usage(
      `pagination must be JSON or off, got ${value.slice(0, 80)}`,
      `write --set 'pagination={"next":"a[rel=next]","maxPages":5}', or ${EXAMPLE}`,
    );
  }
  return checked(config, parsed);
}

/** The limits and list settings, kept when the kind changes. */
function settingsOf(pagination: PaginationSettings | undefined): Partial<PaginationSettings> {
  if (!pagination) return { maxPages: DEFAULT_MAX_PAGES };
  const { next: _n, variable: _v, start: _s, loadMore: _l, scroll: _c, ...rest } = pagination;
  return rest;
}

function setKind(kind: PaginationKind) {
  return (config: ApiConfig, value: string): ApiConfig => {
    if (isOff(value)) return config.pagination?.[kind] !== undefined ? withoutPagination(config) : config;
    const kindValue = kind === 'scroll' ? parseTrue(value) : value.trim();
    const start = kind === 'variable' && config.pagination?.start !== undefined ? { start: config.pagination.start } : {};
    return checked(config, { [kind]: kindValue, ...start, ...settingsOf(config.pagination) });
  };
}

function parseTrue(value: string): true {
  if (['true', 'yes', 'on', '1'].includes(value.trim().toLowerCase())) return true;
  throw usage(
    `pagination.scroll is true or off, not "${value}"`,
    'write --set pagination.scroll=true (scraper 3), or --set pagination=off',
  );
}

type Setting = 'start' | 'maxPages' | 'maxItems' | 'list' | 'key';

function setSetting(key: Setting) {
  return (config: ApiConfig, value: string): ApiConfig => {
    if (!config.pagination)
      throw usage(`set a pagination kind before pagination.${key}`, `write ${EXAMPLE} first (in the same command is fine)`);
    const { [key]: _old, ...rest } = config.pagination;
    if (isOff(value)) return checked(config, rest);
    const numeric = key === 'start' || key === 'maxPages' || key === 'maxItems';
    const parsed = numeric ? Number(value) : value.trim();
    if (numeric && !Number.isInteger(parsed))
      throw usage(`pagination.${key} is a whole number, not "${value}"`, `e.g. --set pagination.${key}=${key === 'start' ? 0 : 5}`);
    return checked(config, { ...rest, [key]: parsed });
  };
}

/** The `--set` keys of pagination, spread into the edit operations' setters. */
export const PAGINATION_SETTERS: Record<string, (config: ApiConfig, value: string) => ApiConfig> = {
  pagination: setWhole,
  'pagination.next': setKind('next'),
  'pagination.variable': setKind('variable'),
  'pagination.loadMore': setKind('loadMore'),
  'pagination.scroll': setKind('scroll'),
  'pagination.start': setSetting('start'),
  'pagination.maxPages': setSetting('maxPages'),
  'pagination.maxItems': setSetting('maxItems'),
  'pagination.list': setSetting('list'),
  'pagination.key': setSetting('key'),
};

/** What changed in pagination between two revisions, in words (`pagejson diff`, the edit summary). */
export function paginationChanges(before: ApiConfig, after: ApiConfig): Array<{ kind: 'setting'; subject: string; text: string }> {
  if (JSON.stringify(before.pagination) === JSON.stringify(after.pagination)) return [];
  const was = before.pagination ? describePagination(before.pagination) : undefined;
  const now = after.pagination ? describePagination(after.pagination) : undefined;
  const text = !was ? `pagination added: ${now}` : !now ? `pagination removed (was: ${was})` : `pagination changed from ${was} to ${now}`;
  return [{ kind: 'setting', subject: 'pagination', text }];
}
