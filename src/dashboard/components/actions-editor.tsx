import { useState } from 'preact/hooks';
import type { ActionStep, Config, Operation } from '../app/types';
import { Section } from './ui';

/**
 * A config's browser actions (docs/actions.md): the steps in words, numbered as errors name them, and the
 * list as JSON to edit. A change is the `--set actions=[…]` operation of `pagejson edit`: tried at once (the
 * live sample is read through the new steps), checked by validate's rules, saved with the other changes.
 */
const EXAMPLE = '[\n  { "ifExists": "#consent", "then": [{ "click": "#accept" }] },\n  { "wait": ".results li" }\n]';

export function ActionsEditor({
  config,
  steps,
  disabled,
  onOperation,
}: {
  config: Config;
  steps: ActionStep[] | undefined;
  disabled: boolean;
  onOperation: (...operations: Operation[]) => void;
}) {
  const current = config.actions && config.actions.length > 0 ? JSON.stringify(config.actions, null, 2) : '';
  const [text, setText] = useState(current);
  const edited = text.trim() !== current.trim();
  return (
    <Section title="Browser actions" id="actions">
      <p class="muted small">
        Steps the browser runs after the page loaded and before it is read: click, wait, waitMs, type + text, press, select + value, scroll,
        ifExists + then. Text may use the request's variables ({'{{ q }}'}). Scraper 3 only; at most 50 steps.
      </p>
      {config.scraper !== 3 ? (
        <p class="muted">This endpoint uses scraper {config.scraper}, which reads the page as it loads: actions need scraper 3.</p>
      ) : null}
      {steps && steps.length > 0 ? (
        <ul class="action-steps" aria-label="The steps in order">
          {steps.map((entry) => (
            <li key={entry.step}>
              <code>{entry.step}</code> {entry.text}
            </li>
          ))}
        </ul>
      ) : (
        <p>No actions: the page is read as it loads.</p>
      )}
      <label for="actions-json">Actions as JSON</label>
      <textarea
        id="actions-json"
        rows={Math.min(16, Math.max(4, text.split('\n').length + 1))}
        spellcheck={false}
        placeholder={EXAMPLE}
        value={text}
        disabled={disabled}
        onInput={(event) => setText(event.currentTarget.value)}
      />
      <div class="actions">
        <button
          type="button"
          disabled={disabled || !edited}
          onClick={() => onOperation({ kind: 'set', key: 'actions', value: text.trim() === '' ? 'off' : text })}
        >
          Try these actions
        </button>
        {current !== '' ? (
          <button
            type="button"
            class="secondary"
            disabled={disabled}
            onClick={() => onOperation({ kind: 'set', key: 'actions', value: 'off' })}
          >
            Remove all actions
          </button>
        ) : null}
      </div>
    </Section>
  );
}
