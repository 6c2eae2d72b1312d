import { useEffect, useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { api, ApiError, credits } from '../app/api';
import type { Config, EditAnswer, UrlPlace } from '../app/types';
import { useEdits } from '../app/use-edits';
import { StructureEditor } from '../components/structure-editor';
import { PaginationEditor } from '../components/pagination-editor';
import { UrlPlaces } from '../components/url-places';
import { Busy, ErrorBox, JsonView, PageTitle, Section } from '../components/ui';

/**
 * Generate: the inputs of `pagejson generate` (URL, scraper, model, section selector, rule), a proposal with
 * its live sample, edits tried on the same page, then save. Credits as in the CLI: checked before, charged
 * at save.
 */
interface Options {
  models: string[];
  scrapers: Array<{ number: 1 | 2 | 3; name: string; supportsSession: boolean; milliCredits: number }>;
  creditsEnabled: boolean;
  balance: number;
}

type Draft = EditAnswer & { places?: UrlPlace[] };

interface Proposal {
  proposalId: string;
  config: Config;
  sample: Record<string, unknown>;
  places: UrlPlace[];
  milliCredits: number;
  exists: boolean;
  file: string;
  paginationText?: string | null;
}

export function GeneratePage() {
  const [options, setOptions] = useState<Options | undefined>();
  const [form, setForm] = useState({
    url: '',
    apiId: '',
    scraper: 1 as 1 | 2 | 3,
    model: 'heuristic',
    selector: 'body',
    rule: '',
    session: false,
  });
  const [proposal, setProposal] = useState<Proposal | undefined>();
  const [saved, setSaved] = useState<EditAnswer | undefined>();
  // Edits of the proposal; a save over an existing endpoint asks first, then saves over it.
  const {
    pending,
    draft,
    setDraft,
    busy,
    setBusy,
    error,
    setError,
    change,
    save: sendSave,
    forget,
  } = useEdits<Draft>(async (operations, save) => {
    const path = `/generate/${proposal!.proposalId}/edits`;
    try {
      return await api<Draft>('POST', path, { operations, save, overwrite: false });
    } catch (caught) {
      if (
        save &&
        caught instanceof ApiError &&
        caught.problem.code === 'CONFIG_EXISTS' &&
        confirm(`${caught.problem.message}. Save over it as its next revision?`)
      ) {
        return api<Draft>('POST', path, { operations, save, overwrite: true });
      }
      throw caught;
    }
  });
  useEffect(() => {
    api<Options>('GET', '/generate/options').then(setOptions, setError);
  }, []);
  const scraper = options?.scrapers.find((entry) => entry.number === form.scraper);

  const generate = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    setProposal(undefined);
    setSaved(undefined);
    forget();
    setBusy(`Fetching ${form.url} with scraper ${form.scraper} and asking ${form.model} for a structure`);
    try {
      setProposal(
        await api<Proposal>('POST', '/generate', {
          url: form.url.trim(),
          ...(form.apiId.trim() ? { apiId: form.apiId.trim() } : {}),
          scraper: form.scraper,
          model: form.model,
          selector: form.selector,
          rule: form.rule.trim() || null,
          session: form.session,
        }),
      );
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(undefined);
    }
  };

  const save = async () => {
    const outcome = await sendSave();
    if (outcome.kind !== 'answer') return;
    if (outcome.answer.written) setSaved(outcome.answer);
    else setDraft(outcome.answer);
  };

  if (saved) {
    return (
      <>
        <PageTitle>Saved</PageTitle>
        <p class="success" role="status">
          Saved <code>{saved.file}</code> (revision {saved.config.revision}); the daemon serves it now.
        </p>
        <p>
          <Link href={`/endpoints/${saved.config.apiId}`} class="button">
            Open {saved.config.apiId}
          </Link>{' '}
          <button type="button" class="secondary" onClick={() => setSaved(undefined)}>
            Generate another
          </button>
        </p>
      </>
    );
  }

  const config = draft?.config ?? proposal?.config;
  return (
    <>
      <PageTitle>Generate an endpoint</PageTitle>
      <form class="generate card" onSubmit={generate}>
        <label class="wide">
          Page URL
          <input
            type="url"
            required
            value={form.url}
            onInput={(event) => setForm({ ...form, url: event.currentTarget.value })}
            placeholder="https://shop.example/catalogue/"
          />
        </label>
        <label>
          API id <span class="muted small">(optional)</span>
          <input
            value={form.apiId}
            pattern="[a-z0-9][a-z0-9_\-]{0,63}"
            onInput={(event) => setForm({ ...form, apiId: event.currentTarget.value })}
            placeholder="from the URL"
          />
        </label>
        <label>
          Scraper
          <select
            value={form.scraper}
            onChange={(event) => setForm({ ...form, scraper: Number(event.currentTarget.value) as 1 | 2 | 3, session: false })}
          >
            {(options?.scrapers ?? []).map((entry) => (
              <option key={entry.number} value={entry.number}>
                {entry.number}: {entry.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Model
          <select value={form.model} onChange={(event) => setForm({ ...form, model: event.currentTarget.value })}>
            {(options?.models ?? ['heuristic']).map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Section selector
          <input value={form.selector} spellcheck={false} onInput={(event) => setForm({ ...form, selector: event.currentTarget.value })} />
        </label>
        <label class="wide">
          Data extraction rule <span class="muted small">(optional)</span>
          <input
            value={form.rule}
            onInput={(event) => setForm({ ...form, rule: event.currentTarget.value })}
            placeholder="e.g. title and price of every book"
          />
        </label>
        {scraper?.supportsSession ? (
          <label class="check">
            <input
              type="checkbox"
              checked={form.session}
              onChange={(event) => setForm({ ...form, session: event.currentTarget.checked })}
            />{' '}
            Session handshake (cookies from a first visit)
          </label>
        ) : null}
        <div class="actions wide">
          <button type="submit" disabled={busy !== undefined}>
            Generate
          </button>
          {options && scraper ? (
            <span class="muted small">
              Costs {credits(scraper.milliCredits)} credits when you save
              {options.creditsEnabled ? ` (balance ${credits(options.balance)})` : ' (credits are off: metered only)'}.
            </span>
          ) : null}
        </div>
      </form>
      {busy ? <Busy label={busy} /> : null}
      <ErrorBox error={error} />
      {proposal && config ? (
        <Section title={`Proposal: ${config.apiId}`} id="proposal">
          <p class="url">{config.url}</p>
          <UrlPlaces places={draft?.places ?? proposal.places} disabled={busy !== undefined} onOperation={change} />
          {proposal.exists ? <p class="warning">An endpoint {config.apiId} exists already: saving asks before it writes over it.</p> : null}
          <div class="split">
            <StructureEditor key={pending.length} structure={config.structure} onOperation={change} disabled={busy !== undefined} />
            <div class="live-sample">
              <h3>Sample</h3>
              <JsonView value={draft?.sample ?? proposal.sample} label="What the proposal extracts from the page" />
            </div>
          </div>
          <PaginationEditor
            key={`pagination-${pending.length}`}
            config={config}
            text={(draft ?? proposal).paginationText}
            disabled={busy !== undefined}
            onOperation={change}
          />
          {draft && draft.problems.length > 0 ? (
            <div class="error" role="alert">
              <strong>Not valid yet:</strong>
              <ul>
                {draft.problems.map((problem, index) => (
                  <li key={index}>
                    <code>{problem.path}</code>: {problem.message}
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
          <div class="actions">
            <button type="button" disabled={busy !== undefined || (draft?.problems.length ?? 0) > 0} onClick={() => void save()}>
              Save as {config.apiId}
            </button>
            <span class="muted small">Writes {proposal.file}.</span>
          </div>
        </Section>
      ) : null}
    </>
  );
}
