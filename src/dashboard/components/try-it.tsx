import { useState } from 'preact/hooks';
import { api } from '../app/api';
import type { Config } from '../app/types';
import { Busy, CopyButton, ErrorBox, JsonView, Section } from './ui';
import { PagesRead } from './pagination-editor';

/** "Try it": the saved revision fetched now with these values (no key, no credits), and the curl to call it. */
interface TryAnswer {
  ok: boolean;
  data?: Record<string, unknown>;
  error?: string;
  health?: string;
  failing?: string[];
  pages?: number;
  partial?: string;
  pageUrls?: string[];
  curl: string;
}

export function TryIt({
  apiId,
  config,
  examples,
  curl,
  publicUrl,
  onRun,
}: {
  apiId: string;
  config: Config;
  examples: Record<string, string>;
  curl: string;
  publicUrl: string;
  onRun?: () => void;
}) {
  const names = Object.keys(examples);
  const [values, setValues] = useState<Record<string, string>>(examples);
  const [answer, setAnswer] = useState<TryAnswer | undefined>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  return (
    <Section title="Try it" id="try">
      <form
        class="try"
        onSubmit={async (event) => {
          event.preventDefault();
          setBusy(true);
          setError(undefined);
          try {
            setAnswer(await api<TryAnswer>('POST', `/endpoints/${apiId}/try`, { values }));
            // The fetch changed the endpoint's last fetch time and health: show them.
            onRun?.();
          } catch (caught) {
            setError(caught);
          } finally {
            setBusy(false);
          }
        }}
      >
        {names.map((name) => (
          <label key={name}>
            {name}
            <input value={values[name] ?? ''} onInput={(event) => setValues({ ...values, [name]: event.currentTarget.value })} />
          </label>
        ))}
        <button type="submit" disabled={busy}>
          Run revision {config.revision}
        </button>
        <span class="muted small">Fetches the page now; no key, no credits.</span>
      </form>
      {busy ? <Busy label={`Fetching ${config.url}`} /> : null}
      <ErrorBox error={error} />
      {answer ? (
        answer.ok ? (
          <>
            {answer.health && answer.health !== 'healthy' ? (
              <p class="warning">
                Health: {answer.health}
                {answer.failing && answer.failing.length > 0 ? ` (failing: ${answer.failing.join(', ')})` : ''}
              </p>
            ) : null}
            {answer.pages === undefined ? (
              <p class="items-read">Read 1 page, {itemsRead(answer.data)}.</p>
            ) : (
              <PagesRead pages={answer.pages} partial={answer.partial} pageUrls={answer.pageUrls} items={itemsRead(answer.data)} />
            )}
            <JsonView value={{ data: answer.data, errors: null }} label="The endpoint's answer" />
          </>
        ) : (
          <p class="error-text">The retrieval failed: {answer.error}</p>
        )
      ) : null}
      <h3>Call it</h3>
      <div class="curl">
        <code>{answer?.curl ?? curl}</code>
        <CopyButton text={answer?.curl ?? curl} />
      </div>
      <p class="muted small">
        Replace <code>&lt;API_KEY&gt;</code> with a key from <a href="/ui/keys">Keys</a>. The daemon answers at <code>{publicUrl}</code>.
      </p>
    </Section>
  );
}

/** How many items the answer's lists hold (`9 items in books`, `12 items in books, 3 in authors`), or its fields. */
export function itemsRead(data: Record<string, unknown> | undefined): string {
  const lists = Object.entries(data ?? {}).filter((entry): entry is [string, unknown[]] => Array.isArray(entry[1]));
  if (lists.length === 0) {
    const filled = Object.values(data ?? {}).filter((value) => value !== null && value !== undefined && value !== '').length;
    return `${filled} field${filled === 1 ? '' : 's'} filled, no list`;
  }
  return lists
    .map(([name, items], index) => `${items.length}${index === 0 ? ` item${items.length === 1 ? '' : 's'}` : ''} in ${name}`)
    .join(', ');
}
