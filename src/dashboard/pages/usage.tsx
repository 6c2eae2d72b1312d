import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, credits } from '../app/api';
import type { EndpointRow, KeyView, Totals, UsagePoint } from '../app/types';
import { TimeChart } from '../components/chart';
import { ErrorBox, PageTitle, Section } from '../components/ui';

/** Requests, cache hits, errors, credits and model tokens over time (hours or days), per endpoint and per key. */
interface UsageAnswer {
  unit: 'hour' | 'day';
  points: UsagePoint[];
  totals: Totals;
  byEndpoint: Array<{ id: string; totals: Totals }>;
  byKey: Array<{ id: string; totals: Totals }>;
  balance: { account: string; milliCredits: number };
  creditsEnabled: boolean;
}

export function UsagePage() {
  const [unit, setUnit] = useState<'hour' | 'day'>('hour');
  const [apiId, setApiId] = useState('');
  const [keyId, setKeyId] = useState('');
  const [usage, setUsage] = useState<UsageAnswer | undefined>();
  const [endpoints, setEndpoints] = useState<string[]>([]);
  const [keys, setKeys] = useState<KeyView[]>([]);
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    api<{ endpoints: EndpointRow[] }>('GET', '/endpoints').then(
      (answer) => setEndpoints(answer.endpoints.map((row) => row.apiId)),
      setError,
    );
    api<{ keys: KeyView[] }>('GET', '/keys').then((answer) => setKeys(answer.keys), setError);
  }, []);
  useEffect(() => {
    const query = new URLSearchParams({ unit, ...(apiId ? { apiId } : {}), ...(keyId ? { keyId } : {}) });
    api<UsageAnswer>('GET', `/usage?${query.toString()}`).then(setUsage, setError);
  }, [unit, apiId, keyId]);
  const times = useMemo(() => (usage?.points ?? []).map((point) => Date.parse(point.at) / 1000), [usage]);
  const requestSeries = useMemo(
    () => [
      { label: 'Requests', values: (usage?.points ?? []).map((point) => point.requests), color: '#2563eb' },
      { label: 'Cache hits', values: (usage?.points ?? []).map((point) => point.cacheHits), color: '#16a34a' },
      { label: 'Errors', values: (usage?.points ?? []).map((point) => point.errors), color: '#dc2626' },
    ],
    [usage],
  );
  const creditSeries = useMemo(
    () => [
      { label: 'Retrieval credits', values: (usage?.points ?? []).map((point) => point.retrievalMilliCredits / 1000), color: '#7c3aed' },
      { label: 'Generation credits', values: (usage?.points ?? []).map((point) => point.generationMilliCredits / 1000), color: '#ea580c' },
    ],
    [usage],
  );
  const tokenSeries = useMemo(
    () => [
      { label: 'Prompt tokens', values: (usage?.points ?? []).map((point) => point.promptTokens), color: '#0891b2' },
      { label: 'Completion tokens', values: (usage?.points ?? []).map((point) => point.completionTokens), color: '#be185d' },
    ],
    [usage],
  );
  const span = unit === 'hour' ? 'last 48 hours' : 'last 30 days';
  return (
    <>
      <PageTitle>Usage</PageTitle>
      <ErrorBox error={error} />
      <div class="toolbar">
        <fieldset class="segmented">
          <legend class="visually-hidden">Time unit</legend>
          <label class="check">
            <input type="radio" name="unit" checked={unit === 'hour'} onChange={() => setUnit('hour')} /> Hours
          </label>
          <label class="check">
            <input type="radio" name="unit" checked={unit === 'day'} onChange={() => setUnit('day')} /> Days
          </label>
        </fieldset>
        <label>
          Endpoint
          <select value={apiId} onChange={(event) => setApiId(event.currentTarget.value)}>
            <option value="">all endpoints</option>
            {endpoints.map((id) => (
              <option key={id} value={id}>
                {id}
              </option>
            ))}
          </select>
        </label>
        <label>
          Key
          <select value={keyId} onChange={(event) => setKeyId(event.currentTarget.value)}>
            <option value="">all keys</option>
            {keys.map((key) => (
              <option key={key.id} value={key.id}>
                {keyName(key)}
              </option>
            ))}
          </select>
        </label>
      </div>
      {usage ? (
        <>
          <div class="stats" role="group" aria-label={`Totals, ${span}`}>
            <Stat label={`Requests, ${span}`} value={String(usage.totals.requests)} id="stat-requests" />
            <Stat label="Cache hits" value={String(usage.totals.cacheHits)} id="stat-hits" />
            <Stat label="Errors" value={String(usage.totals.errors)} id="stat-errors" />
            <Stat label="Credits on retrieval" value={credits(usage.totals.retrievalMilliCredits)} id="stat-retrieval" />
            <Stat label="Credits on generation" value={credits(usage.totals.generationMilliCredits)} id="stat-generation" />
            <Stat label="Model prompt tokens" value={String(usage.totals.promptTokens)} id="stat-prompt-tokens" />
            <Stat label="Model completion tokens" value={String(usage.totals.completionTokens)} id="stat-completion-tokens" />
            <Stat
              label={`Balance (${usage.balance.account})`}
              value={usage.creditsEnabled ? credits(usage.balance.milliCredits) : 'credits off'}
              id="stat-balance"
            />
          </div>
          <Section title="Requests" id="requests-chart">
            <TimeChart title={`Requests, ${span}`} times={times} series={requestSeries} unit={unit} />
          </Section>
          <Section title="Credits" id="credits-chart">
            <TimeChart title={`Credits, ${span}`} times={times} series={creditSeries} unit={unit} />
          </Section>
          <Section title="Model tokens" id="tokens-chart">
            <TimeChart title={`Model tokens, ${span}`} times={times} series={tokenSeries} unit={unit} />
          </Section>
          <div class="split even">
            <Breakdown title="Per endpoint" rows={usage.byEndpoint} />
            <Breakdown title="Per key" rows={usage.byKey} names={new Map(keys.map((key) => [key.id, keyName(key)]))} />
          </div>
        </>
      ) : (
        <p>Loading…</p>
      )}
    </>
  );
}

function Stat({ label, value, id }: { label: string; value: string; id: string }) {
  return (
    <div class="stat">
      <div class="stat-value" id={id} aria-describedby={`${id}-label`}>
        {value}
      </div>
      <div class="stat-label" id={`${id}-label`}>
        {label}
      </div>
    </div>
  );
}

/** People know keys by their label; a key without one by its id. */
function keyName(key: Pick<KeyView, 'id' | 'label'>): string {
  return key.label || key.id;
}

function Breakdown({
  title,
  rows,
  names,
}: {
  title: string;
  rows: Array<{ id: string; totals: Totals }>;
  /** How each row's id is shown (keys by label); the id itself otherwise. */
  names?: Map<string, string>;
}) {
  return (
    <Section title={title}>
      {rows.length === 0 ? (
        <p class="muted">Nothing in this period.</p>
      ) : (
        <table class="list breakdown">
          <thead>
            <tr>
              <th scope="col">{title === 'Per key' ? 'Key' : 'Endpoint'}</th>
              <th scope="col" class="number">
                Requests
              </th>
              <th scope="col" class="number">
                Cache hits
              </th>
              <th scope="col" class="number">
                Errors
              </th>
              <th scope="col" class="number">
                Credits
              </th>
              <th scope="col" class="number">
                Model tokens (prompt / completion)
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.id}>
                <th scope="row">
                  {names?.get(row.id) !== undefined && names.get(row.id) !== row.id ? (
                    <span title={row.id}>{names.get(row.id)}</span>
                  ) : (
                    <code>{row.id}</code>
                  )}
                </th>
                <td class="number">{row.totals.requests}</td>
                <td class="number">{row.totals.cacheHits}</td>
                <td class="number">{row.totals.errors}</td>
                <td class="number">{credits(row.totals.retrievalMilliCredits + row.totals.generationMilliCredits)}</td>
                <td class="number">
                  {row.totals.promptTokens} / {row.totals.completionTokens}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Section>
  );
}
