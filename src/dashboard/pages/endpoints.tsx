import { useEffect, useMemo, useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { api, credits, when } from '../app/api';
import type { EndpointRow, Problem } from '../app/types';
import { ErrorBox, Health, PageTitle } from '../components/ui';

/** Every endpoint with the dashboard fields of docs/wire.md, its health and the last 24 hours; filter by text. */
export function EndpointsPage() {
  const [rows, setRows] = useState<EndpointRow[] | undefined>();
  const [problems, setProblems] = useState<Problem[]>([]);
  const [error, setError] = useState<unknown>();
  const [filter, setFilter] = useState('');
  useEffect(() => {
    api<{ endpoints: EndpointRow[]; problems: Problem[] }>('GET', '/endpoints').then((answer) => {
      setRows(answer.endpoints);
      setProblems(answer.problems);
    }, setError);
  }, []);
  const shown = useMemo(() => {
    const needle = filter.trim().toLowerCase();
    if (!rows || needle === '') return rows ?? [];
    return rows.filter((row) =>
      `${row.apiId} ${row.sourceUrl} ${row.description} ${row.status} ${row.health ?? ''}`.toLowerCase().includes(needle),
    );
  }, [rows, filter]);
  return (
    <>
      <PageTitle>Endpoints</PageTitle>
      <ErrorBox error={error} />
      <div class="toolbar">
        <label>
          Filter
          <input type="search" value={filter} onInput={(event) => setFilter(event.currentTarget.value)} placeholder="apiId, URL, status…" />
        </label>
        <Link href="/generate" class="button">
          Generate an endpoint
        </Link>
      </div>
      {problems.length > 0 ? (
        <div class="warning" role="status">
          <strong>{problems.length} config file(s) are not served:</strong>
          <ul>
            {problems.map((problem, index) => (
              <li key={index}>
                <code>{problem.file}</code> at <code>{problem.path}</code>: {problem.message}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {rows === undefined ? (
        <p>Loading…</p>
      ) : rows.length === 0 ? (
        <p>
          No endpoints yet. <Link href="/generate">Generate one</Link> from a page, or run <code>pagejson generate &lt;url&gt;</code>.
        </p>
      ) : (
        <table class="list">
          <caption class="visually-hidden">Endpoints, {shown.length} shown</caption>
          <thead>
            <tr>
              <th scope="col">API id</th>
              <th scope="col">Source URL</th>
              <th scope="col">Status</th>
              <th scope="col">Scraper</th>
              <th scope="col">Last fetch</th>
              <th scope="col">Health</th>
              <th scope="col" class="number">
                Requests 24 h
              </th>
              <th scope="col" class="number">
                Credits 24 h
              </th>
            </tr>
          </thead>
          <tbody>
            {shown.map((row) => (
              <tr key={row.apiId}>
                <th scope="row">
                  <Link href={`/endpoints/${row.apiId}`}>{row.apiId}</Link>
                  <div class="muted small">{row.description}</div>
                </th>
                <td class="url">{row.sourceUrl}</td>
                <td>
                  <span class={`badge ${row.status}`}>{row.status}</span>
                </td>
                <td>
                  {row.scraper} <span class="muted small">{row.scraperName}</span>
                </td>
                <td>
                  {when(row.lastFetchAt)}
                  {row.lastError ? <div class="error-text small">last error: {row.lastError}</div> : null}
                </td>
                <td>
                  <Health health={row.health} />
                  {row.findings.length > 0 ? (
                    <div class="small muted">{row.findings.slice(0, 2).join('; ') + (row.findings.length > 2 ? '; …' : '')}</div>
                  ) : row.failingFields.length > 0 ? (
                    <div class="small muted">failing: {row.failingFields.join(', ')}</div>
                  ) : null}
                </td>
                <td class="number">{row.last24h.requests}</td>
                <td class="number">{credits(row.last24h.retrievalMilliCredits + row.last24h.generationMilliCredits)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
