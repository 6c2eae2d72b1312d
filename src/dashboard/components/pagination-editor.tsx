import { useState } from 'preact/hooks';
import type { Config, Operation, Pagination } from '../app/types';
import { Section } from './ui';

/**
 * A config's pagination (docs/pagination.md): how its list is read over several pages, in words, and a form
 * for each kind. A change is `pagejson edit`'s `--set pagination={…}` (or `=off`): tried at once, checked by
 * validate's rules (loadMore and scroll need scraper 3, the page variable must be in the URL), saved with the
 * other changes. Try it then shows every page the answer holds.
 */
type Kind = 'none' | 'next' | 'variable' | 'loadMore' | 'scroll';

const KINDS: Array<{ value: Kind; label: string; help: string }> = [
  { value: 'none', label: 'One page', help: 'The page is read as it loads.' },
  { value: 'next', label: 'Next link', help: 'Follow the href of the next-page link, page after page (scrapers 1, 2 and 3).' },
  {
    value: 'variable',
    label: 'Page number',
    help: 'Count a URL variable up ({{ page }} in the URL); callers do not send it (scrapers 1, 2 and 3).',
  },
  { value: 'loadMore', label: 'Load more', help: 'Click the button until it is gone or nothing new appears (scraper 3).' },
  { value: 'scroll', label: 'Infinite scroll', help: 'Scroll to the end until nothing new appears (scraper 3).' },
];

function kindOf(pagination: Pagination | undefined): Kind {
  if (!pagination) return 'none';
  if (pagination.next !== undefined) return 'next';
  if (pagination.variable !== undefined) return 'variable';
  if (pagination.loadMore !== undefined) return 'loadMore';
  return 'scroll';
}

interface Form {
  kind: Kind;
  selector: string;
  variable: string;
  start: string;
  maxPages: string;
  maxItems: string;
  list: string;
  key: string;
}

function formOf(pagination: Pagination | undefined): Form {
  const kind = kindOf(pagination);
  return {
    kind,
    selector: pagination?.next ?? pagination?.loadMore ?? '',
    variable: pagination?.variable ?? 'page',
    start: pagination?.start === undefined ? '' : String(pagination.start),
    maxPages: String(pagination?.maxPages ?? 10),
    maxItems: pagination?.maxItems === undefined ? '' : String(pagination.maxItems),
    list: pagination?.list ?? '',
    key: pagination?.key ?? '',
  };
}

/** The form as the JSON `--set pagination=` takes; numbers as typed (the schema says what is wrong with them). */
function valueOf(form: Form): string {
  if (form.kind === 'none') return 'off';
  const number = (text: string) => (text.trim() === '' ? undefined : Number(text));
  const kind =
    form.kind === 'scroll'
      ? { scroll: true }
      : form.kind === 'variable'
        ? { variable: form.variable.trim(), ...(form.start.trim() !== '' ? { start: number(form.start) } : {}) }
        : { [form.kind]: form.selector.trim() };
  const limits = {
    maxPages: number(form.maxPages) ?? 10,
    ...(form.maxItems.trim() !== '' ? { maxItems: number(form.maxItems) } : {}),
    ...(form.list.trim() !== '' ? { list: form.list.trim() } : {}),
    ...(form.key.trim() !== '' ? { key: form.key.trim() } : {}),
  };
  return JSON.stringify({ ...kind, ...limits });
}

export function PaginationEditor({
  config,
  text,
  disabled,
  onOperation,
}: {
  config: Config;
  text: string | null | undefined;
  disabled: boolean;
  onOperation: (...operations: Operation[]) => void;
}) {
  const [form, setForm] = useState<Form>(formOf(config.pagination));
  const set = (patch: Partial<Form>) => setForm({ ...form, ...patch });
  const edited = valueOf(form) !== valueOf(formOf(config.pagination));
  const lists = config.structure.filter((field) => field.type === 'array').map((field) => field.name);
  const help = KINDS.find((entry) => entry.value === form.kind)!.help;
  return (
    <Section title="Pagination" id="pagination">
      <p>
        {text
          ? `Reads the list over pages: ${text}. Each page the answer holds costs the price of a call (the cost line above).`
          : 'One page: the list is read from the page as it loads.'}
      </p>
      <fieldset class="toolbar" disabled={disabled}>
        <legend>How the list continues</legend>
        {KINDS.map((entry) => (
          <label key={entry.value} class="inline">
            <input
              type="radio"
              name="pagination-kind"
              value={entry.value}
              checked={form.kind === entry.value}
              onChange={() => set({ kind: entry.value })}
            />{' '}
            {entry.label}
          </label>
        ))}
      </fieldset>
      <p class="muted small">{help}</p>
      {(form.kind === 'loadMore' || form.kind === 'scroll') && config.scraper !== 3 ? (
        <p class="warning">This endpoint uses scraper {config.scraper}, which reads the page as it loads: this kind needs scraper 3.</p>
      ) : null}
      {form.kind === 'next' || form.kind === 'loadMore' ? (
        <label>
          {form.kind === 'next' ? 'Selector of the next-page link' : 'Selector of the button'}
          <input
            value={form.selector}
            disabled={disabled}
            placeholder={form.kind === 'next' ? 'a[rel="next"]' : 'button.load-more'}
            onInput={(event) => set({ selector: event.currentTarget.value })}
          />
        </label>
      ) : null}
      {form.kind === 'variable' ? (
        <div class="toolbar">
          <label>
            URL variable
            <input value={form.variable} disabled={disabled} onInput={(event) => set({ variable: event.currentTarget.value })} />
          </label>
          <label>
            First page
            <input
              inputMode="numeric"
              value={form.start}
              placeholder="1"
              disabled={disabled}
              onInput={(event) => set({ start: event.currentTarget.value })}
            />
          </label>
        </div>
      ) : null}
      {form.kind !== 'none' ? (
        <div class="toolbar">
          <label>
            {form.kind === 'loadMore' || form.kind === 'scroll' ? 'Rounds at most' : 'Pages at most'}
            <input
              inputMode="numeric"
              value={form.maxPages}
              disabled={disabled}
              onInput={(event) => set({ maxPages: event.currentTarget.value })}
            />
          </label>
          <label>
            Items at most
            <input
              inputMode="numeric"
              value={form.maxItems}
              placeholder="no limit"
              disabled={disabled}
              onInput={(event) => set({ maxItems: event.currentTarget.value })}
            />
          </label>
          <label>
            List
            <select value={form.list} disabled={disabled} onChange={(event) => set({ list: event.currentTarget.value })}>
              <option value="">{lists[0] ? `${lists[0]} (the first list)` : '(no list field)'}</option>
              {lists.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </label>
          <label>
            Items told apart by
            <input
              value={form.key}
              placeholder="every field"
              disabled={disabled}
              onInput={(event) => set({ key: event.currentTarget.value })}
            />
          </label>
        </div>
      ) : null}
      <div class="actions">
        <button
          type="button"
          disabled={disabled || !edited}
          onClick={() => onOperation({ kind: 'set', key: 'pagination', value: valueOf(form) })}
        >
          {form.kind === 'none' ? 'Read one page' : 'Try this pagination'}
        </button>
      </div>
    </Section>
  );
}

/** Try it's account of a paginated answer: how many pages, cut short or not, and each page's address. */
export function PagesRead({
  pages,
  partial,
  pageUrls,
  items,
}: {
  pages?: number | undefined;
  partial?: string | undefined;
  pageUrls?: string[] | undefined;
  /** What the pages held (`9 items in books`), said after their count. */
  items?: string | undefined;
}) {
  if (pages === undefined) return null;
  return (
    <div class="pages-read">
      <p>
        Read {pages} page{pages === 1 ? '' : 's'}
        {items ? `, ${items}` : ''}
        {partial === 'time'
          ? ', cut short by the time budget (fetch.timeoutMs): the answer says it is partial'
          : partial === 'error'
            ? ', cut short: a later page failed'
            : ''}
        .
      </p>
      {pageUrls && pageUrls.length > 0 ? (
        <ol class="page-urls" aria-label="The pages the answer holds">
          {pageUrls.map((url) => (
            <li key={url}>
              <code>{url}</code>
            </li>
          ))}
        </ol>
      ) : null}
    </div>
  );
}
