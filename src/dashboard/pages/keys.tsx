import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, credits, when } from '../app/api';
import type { Session } from '../app/main';
import type { CreatedKey, EndpointRow, KeyView } from '../app/types';
import { CopyButton, ErrorBox, PageTitle, Section } from '../components/ui';

/**
 * API keys: status, scope, dates and usage per key; create (shown once), revoke, rotate with a grace period.
 * pagejson keeps only a SHA-256 digest of each key, so a key can never be shown again.
 */
export function KeysPage({ session }: { session: Session }) {
  const [keys, setKeys] = useState<KeyView[] | undefined>();
  const [endpoints, setEndpoints] = useState<string[]>([]);
  const [created, setCreated] = useState<CreatedKey | undefined>();
  const [error, setError] = useState<unknown>();
  const [label, setLabel] = useState('');
  const [scope, setScope] = useState<string[]>([]);
  const [grace, setGrace] = useState(60);

  const load = useCallback(async () => {
    try {
      setKeys((await api<{ keys: KeyView[] }>('GET', '/keys')).keys);
    } catch (caught) {
      setError(caught);
    }
  }, []);
  useEffect(() => {
    void load();
    api<{ endpoints: EndpointRow[] }>('GET', '/endpoints').then(
      (answer) => setEndpoints(answer.endpoints.map((row) => row.apiId)),
      setError,
    );
  }, [load]);

  const act = async (work: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await work();
      await load();
    } catch (caught) {
      setError(caught);
    }
  };

  return (
    <>
      <PageTitle>API keys</PageTitle>
      <p class="muted">
        Callers send a key in the <code>apikey</code> header. pagejson stores only a hash of each key: a new key is shown once, when it is
        created, and never again.
      </p>
      <ErrorBox error={error} />
      {created ? (
        <div class="card highlight" role="status">
          <h2>New key {created.id}</h2>
          <p>
            <strong>Copy it now: it will not be shown again.</strong>
          </p>
          <div class="curl">
            <code class="secret">{created.key}</code>
            <CopyButton text={created.key} label="Copy key" />
          </div>
          <p class="small muted">
            Try it:{' '}
            <code>
              curl -H 'apikey: {created.key}' {session.publicUrl}/external/&lt;apiId&gt;
            </code>
          </p>
          <button type="button" class="secondary" onClick={() => setCreated(undefined)}>
            I have stored it
          </button>
        </div>
      ) : null}
      <Section title="Create a key" id="create">
        <form
          class="create-key"
          onSubmit={(event) => {
            event.preventDefault();
            void act(async () => {
              setCreated(await api<CreatedKey>('POST', '/keys', { label: label.trim() || null, scope: scope.length > 0 ? scope : null }));
              setLabel('');
              setScope([]);
            });
          }}
        >
          <label>
            Label
            <input
              value={label}
              maxLength={100}
              onInput={(event) => setLabel(event.currentTarget.value)}
              placeholder="e.g. price-monitor"
            />
          </label>
          <fieldset>
            <legend>Endpoints it may call (none checked: all)</legend>
            {endpoints.map((apiId) => (
              <label key={apiId} class="check">
                <input
                  type="checkbox"
                  checked={scope.includes(apiId)}
                  onChange={(event) => setScope(event.currentTarget.checked ? [...scope, apiId] : scope.filter((id) => id !== apiId))}
                />{' '}
                {apiId}
              </label>
            ))}
          </fieldset>
          <button type="submit">Create key</button>
        </form>
      </Section>
      <Section title="Keys" id="keys">
        {keys === undefined ? (
          <p>Loading…</p>
        ) : keys.length === 0 ? (
          <p>No keys yet.</p>
        ) : (
          <>
            <label class="inline">
              Grace period when rotating (minutes)
              <input
                type="number"
                min={0}
                max={43200}
                value={grace}
                onInput={(event) => setGrace(Number(event.currentTarget.value) || 0)}
              />
            </label>
            <table class="list">
              <caption class="visually-hidden">API keys</caption>
              <thead>
                <tr>
                  <th scope="col">Key</th>
                  <th scope="col">Status</th>
                  <th scope="col">Scope</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last used</th>
                  <th scope="col" class="number">
                    Requests
                  </th>
                  <th scope="col" class="number">
                    Credits
                  </th>
                  <th scope="col">Endpoints called</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {keys.map((key) => (
                  <tr key={key.id}>
                    <th scope="row">
                      {key.label ? <div>{key.label}</div> : null}
                      <code class={key.label ? 'small muted' : undefined}>{key.id}</code>
                    </th>
                    <td>
                      <span class={`badge ${key.status}`}>{key.status}</span>
                      {key.expiresAt && key.status === 'active' ? <div class="small muted">until {when(key.expiresAt)}</div> : null}
                    </td>
                    <td>{key.scope ? key.scope.join(', ') : 'all endpoints'}</td>
                    <td>{when(key.createdAt)}</td>
                    <td>{when(key.lastUsedAt)}</td>
                    <td class="number">{key.usage.requests}</td>
                    <td class="number">{credits(key.usage.milliCredits)}</td>
                    <td>{key.endpoints.join(', ') || '—'}</td>
                    <td>
                      {key.status === 'active' ? (
                        <span class="row-actions">
                          <button
                            type="button"
                            class="secondary small"
                            onClick={() =>
                              void act(async () =>
                                setCreated((await api<{ key: CreatedKey }>('POST', `/keys/${key.id}/rotate`, { graceMinutes: grace })).key),
                              )
                            }
                          >
                            Rotate
                          </button>
                          <button
                            type="button"
                            class="danger small"
                            onClick={() =>
                              confirm(
                                `Revoke ${key.label ? `${key.label} (${key.id})` : key.id}? Requests with it will be refused at once.`,
                              ) && void act(() => api('POST', `/keys/${key.id}/revoke`))
                            }
                          >
                            Revoke
                          </button>
                        </span>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        )}
      </Section>
    </>
  );
}
