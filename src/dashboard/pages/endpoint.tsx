import { useCallback, useEffect, useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { api, when } from '../app/api';
import type { ActionStep, Change, Config, EditAnswer, EndpointStatus, Operation, UrlPlace } from '../app/types';
import type { Session } from '../app/main';
import { useEdits } from '../app/use-edits';
import { ActionsEditor } from '../components/actions-editor';
import { PaginationEditor } from '../components/pagination-editor';
import { AccessEditor } from '../components/access-editor';
import { LoginPanel } from '../components/login-panel';
import { StructureEditor } from '../components/structure-editor';
import { Busy, CopyButton, ErrorBox, Health, JsonView, PageTitle, Section } from '../components/ui';
import { UrlPlaces } from '../components/url-places';
import { TryIt } from '../components/try-it';
import { RepairView } from '../components/repair-view';

/**
 * One endpoint: status, URL places (a toggle per path segment and query parameter), "try it", the structure
 * with live previews of every change, and its revisions. Changes collect as `pagejson edit` operations; Save
 * writes them as one new revision (checked by `validate`'s rules, served at once).
 */
interface Detail {
  config: Config;
  status: EndpointStatus;
  file: string | null;
  places: UrlPlace[];
  examples: Record<string, string>;
  curl: string;
  actionSteps?: ActionStep[];
  paginationText?: string | null;
  /** What a call costs, from the source and from the cache (pagejson.json's credits). */
  price: string;
}

interface Revision {
  revision: number;
  replacedAt: string | null;
  changes: Change[] | null;
  patch: string | null;
}

type Draft = EditAnswer & { places: UrlPlace[] };

export function EndpointPage({ apiId, session }: { apiId: string; session: Session }) {
  const [detail, setDetail] = useState<Detail | undefined>();
  const [revisions, setRevisions] = useState<Revision[]>([]);
  const [saved, setSaved] = useState<string | undefined>();
  const {
    pending,
    draft,
    setDraft,
    busy,
    error,
    setError,
    change: tryChange,
    save: sendSave,
    forget,
  } = useEdits<Draft>((operations, save) =>
    api<Draft>('POST', `/endpoints/${apiId}/edits`, { baseRevision: detail!.config.revision, operations, save, preview: !save }),
  );
  const change = (...operations: Operation[]) => {
    setSaved(undefined);
    return tryChange(...operations);
  };

  const load = useCallback(async () => {
    try {
      const [next, history] = await Promise.all([
        api<Detail>('GET', `/endpoints/${apiId}`),
        api<{ revisions: Revision[] }>('GET', `/endpoints/${apiId}/revisions`),
      ]);
      setDetail(next);
      setRevisions(history.revisions);
    } catch (caught) {
      setError(caught);
    }
  }, [apiId]);
  useEffect(() => {
    void load();
  }, [load]);

  const save = async (operations?: Operation[]) => {
    setSaved(undefined);
    const outcome = await sendSave(operations);
    if (outcome.kind !== 'answer') return;
    const answer = outcome.answer;
    if (answer.problems.length > 0) {
      setDraft(answer);
      return;
    }
    setSaved(
      answer.written
        ? `Saved revision ${answer.config.revision} to ${detail?.file ?? 'its file'}; the daemon serves it now.`
        : 'Nothing changed.',
    );
    forget();
    await load();
  };

  if (!detail) return error ? <ErrorBox error={error} /> : <p>Loading…</p>;
  const config = draft?.config ?? detail.config;
  const places = draft?.places ?? detail.places;
  const { status } = detail;
  return (
    <>
      <p class="crumbs">
        <Link href="/">Endpoints</Link> ›
      </p>
      <PageTitle>{apiId}</PageTitle>
      <p class="lead">{config.description ?? ''}</p>
      <div class="facts">
        <span class={`badge ${detail.config.status}`}>{detail.config.status}</span>
        <Health health={status.health} />
        <span>
          revision {detail.config.revision} · scraper {status.scraper} ({status.scraperName}) · last fetch {when(status.lastFetchAt)}
        </span>
        <span id="endpoint-price">costs {detail.price}</span>
        {detail.file ? <code class="small">{detail.file}</code> : null}
        <button
          type="button"
          class="secondary small"
          disabled={busy !== undefined || pending.length > 0}
          title={pending.length > 0 ? 'save or discard the pending changes first' : undefined}
          onClick={() => save([{ kind: 'set', key: 'status', value: detail.config.status === 'active' ? 'inactive' : 'active' }])}
        >
          {detail.config.status === 'active' ? 'Deactivate' : 'Activate'}
        </button>
      </div>
      {status.findings.length > 0 ? (
        <div class="health-findings" role="status">
          <p>
            {status.health} since {when(status.healthSince)}: what changed, field by field
          </p>
          <ul>
            {status.findings.map((finding) => (
              <li key={finding}>{finding}</li>
            ))}
          </ul>
          <p class="small muted">
            The page may have changed: <code>pagejson heal {apiId}</code> repairs the selectors from the last good values.
          </p>
        </div>
      ) : null}
      {status.health === 'degraded' || status.health === 'broken' ? (
        <RepairView apiId={apiId} revision={detail.config.revision} onSaved={() => void load()} />
      ) : null}
      {status.lastError ? (
        <p class="error-text">
          Last error ({when(status.lastErrorAt)}): {status.lastError}
        </p>
      ) : null}
      <ErrorBox error={error} />
      {saved ? (
        <p class="success" role="status">
          {saved}
        </p>
      ) : null}

      <div class="pending" aria-live="polite">
        {busy ? <Busy label={busy} /> : null}
        {pending.length > 0 && draft ? (
          <div class="card highlight">
            <h2>Unsaved changes</h2>
            <ul>
              {(draft.changes ?? []).map((entry, index) => (
                <li key={index}>{entry.text}</li>
              ))}
            </ul>
            {draft.problems.length > 0 ? (
              <div class="error" role="alert">
                <strong>Not valid yet, so it cannot be saved:</strong>
                <ul>
                  {draft.problems.map((problem, index) => (
                    <li key={index}>
                      <code>{problem.path}</code>: {problem.message}
                      {problem.hint ? ` (${problem.hint})` : ''}
                    </li>
                  ))}
                </ul>
              </div>
            ) : null}
            <div class="actions">
              <button type="button" disabled={busy !== undefined || draft.problems.length > 0} onClick={() => save()}>
                Save revision {detail.config.revision + 1}
              </button>
              <button type="button" class="secondary" disabled={busy !== undefined} onClick={forget}>
                Discard
              </button>
            </div>
          </div>
        ) : null}
      </div>

      <TryIt
        key={detail.config.revision}
        apiId={apiId}
        config={detail.config}
        examples={detail.examples}
        curl={detail.curl}
        publicUrl={session.publicUrl}
        onRun={() => void load()}
      />

      <Section title="Structure" id="structure">
        <div class="split">
          <StructureEditor
            key={`${detail.config.revision}-${pending.length === 0}`}
            structure={config.structure}
            onOperation={change}
            disabled={busy !== undefined}
          />
          <div class="live-sample">
            <h3>Live sample</h3>
            {draft?.previewError ? <p class="error-text">The page could not be read: {draft.previewError.message}</p> : null}
            {draft?.sample ? (
              <JsonView value={draft.sample} label="What the edited structure extracts from the page" />
            ) : (
              <p class="muted">Change a field or a selector to see what it extracts from the live page.</p>
            )}
          </div>
        </div>
      </Section>

      {/* The data and its structure first; what shapes the fetch (issue 52) folded below. */}
      <details class="card settings" id="settings">
        <summary>
          <h2>Settings</h2>
          <span class="muted small">source URL and variables, browser actions, pagination, headers and proxies, login</span>
        </summary>
        <Section title="Source URL" id="url">
          <p class="url">{config.url}</p>
          <UrlPlaces places={places} disabled={busy !== undefined} onOperation={change} />
        </Section>

        <ActionsEditor
          key={`${detail.config.revision}-${pending.length === 0}`}
          config={config}
          steps={(draft ?? detail).actionSteps}
          disabled={busy !== undefined}
          onOperation={change}
        />

        <PaginationEditor
          key={`pagination-${detail.config.revision}-${pending.length === 0}`}
          config={config}
          text={(draft ?? detail).paginationText}
          disabled={busy !== undefined}
          onOperation={change}
        />

        <AccessEditor
          key={`access-${detail.config.revision}-${pending.length === 0}`}
          config={config}
          disabled={busy !== undefined}
          onOperation={change}
        />

        <LoginPanel key={`login-${detail.config.revision}`} apiId={apiId} config={detail.config} />
      </details>

      <Section title="Revisions" id="revisions">
        <ol class="revisions">
          {revisions.map((entry) => (
            <li key={entry.revision}>
              <strong>Revision {entry.revision}</strong>{' '}
              {entry.replacedAt ? (
                <span class="muted small">replaced {when(entry.replacedAt)}</span>
              ) : (
                <span class="badge active">current</span>
              )}
              {entry.changes === null ? (
                <div class="muted small">
                  {entry.revision === 1 ? 'first revision' : 'the revision before it is not kept here (see git history)'}
                </div>
              ) : (
                <ul>
                  {entry.changes.map((item, index) => (
                    <li key={index}>{item.text}</li>
                  ))}
                </ul>
              )}
              {entry.patch ? (
                <details>
                  <summary>File diff</summary>
                  <pre class="diff" tabIndex={0} aria-label={`Diff of revision ${entry.revision} against revision ${entry.revision - 1}`}>
                    {entry.patch.split('\n').map((line, index) => (
                      <span
                        key={index}
                        class={
                          line.startsWith('+++') || line.startsWith('---') || line.startsWith('@@')
                            ? 'hunk'
                            : line.startsWith('+')
                              ? 'add'
                              : line.startsWith('-')
                                ? 'del'
                                : undefined
                        }
                      >
                        {line}
                        {'\n'}
                      </span>
                    ))}
                  </pre>
                </details>
              ) : null}
            </li>
          ))}
        </ol>
        <p class="muted small">
          Every save writes the config file as a new revision; commit it to keep it in your repository.{' '}
          <CopyButton text={`pagejson diff ${apiId}`} label="Copy the diff command" />
        </p>
      </Section>
    </>
  );
}
