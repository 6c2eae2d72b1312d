import { useCallback, useEffect, useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import { api, when } from '../app/api';
import type { JobReason, JobRow } from '../app/types';
import { ErrorBox, PageTitle, Section } from '../components/ui';

/**
 * Jobs (docs/jobs.md): every key's jobs, newest first, with their progress and counts; one job's failures by
 * reason; cancel; the results as NDJSON, CSV or JSON. The list is asked again every 2 s while a job is under way.
 */
const FINISHED = new Set(['done', 'failed', 'cancelled']);
const REFRESH_MS = 2_000;

const ended = (job: JobRow) => job.done + job.failed + job.skipped;

function Progress({ job }: { job: JobRow }) {
  const label = `${ended(job)} of ${job.total}`;
  return (
    <div class="job-progress">
      <progress max={Math.max(job.total, 1)} value={job.total === 0 ? 1 : ended(job)} aria-label={`${job.id}: ${label} inputs ended`} />
      <span class="small">{label}</span>
    </div>
  );
}

function Downloads({ job }: { job: JobRow }) {
  const base = `/ui/api/jobs/${job.id}/results`;
  return (
    <span class="row-actions">
      {(['ndjson', 'csv', 'json'] as const).map((format) => (
        <a
          key={format}
          class="small"
          href={`${base}?format=${format}`}
          download
          aria-label={`Download the results of ${job.id} as ${format.toUpperCase()}`}
        >
          {format.toUpperCase()}
        </a>
      ))}
    </span>
  );
}

function Reasons({ job, reasons }: { job: JobRow; reasons: JobReason[] }) {
  return (
    <Section title={`Why inputs of ${job.id} gave no data`} id="reasons">
      {job.reason ? (
        <p>
          The job {job.state === 'cancelled' ? 'was cancelled' : 'stopped'}: {job.reason}
        </p>
      ) : null}
      {reasons.length === 0 ? (
        <p>Every input that ended gave data.</p>
      ) : (
        <table class="list">
          <caption class="visually-hidden">Errors and skipped inputs by reason</caption>
          <thead>
            <tr>
              <th scope="col">Reason</th>
              <th scope="col">Outcome</th>
              <th scope="col" class="number">
                Inputs
              </th>
              <th scope="col">First message</th>
            </tr>
          </thead>
          <tbody>
            {reasons.map((reason) => (
              <tr key={`${reason.outcome} ${reason.code}`}>
                <th scope="row">
                  <code>{reason.code}</code>
                </th>
                <td>{reason.outcome}</td>
                <td class="number">{reason.count}</td>
                <td>{reason.message}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <p class="small">
        Only these lines: <a href={`/ui/api/jobs/${job.id}/results?format=csv&errors=only`}>CSV</a>,{' '}
        <a href={`/ui/api/jobs/${job.id}/results?format=ndjson&errors=only`}>NDJSON</a>
      </p>
    </Section>
  );
}

export function JobsPage() {
  const [jobs, setJobs] = useState<JobRow[] | undefined>();
  const [error, setError] = useState<unknown>();
  const [open, setOpen] = useState<{ job: JobRow; reasons: JobReason[] } | undefined>();

  const load = useCallback(async () => {
    try {
      setJobs((await api<{ jobs: JobRow[] }>('GET', '/jobs')).jobs);
    } catch (caught) {
      setError(caught);
    }
  }, []);
  useEffect(() => void load(), [load]);
  const underWay = jobs?.some((job) => !FINISHED.has(job.state)) ?? false;
  useEffect(() => {
    if (!underWay) return undefined;
    const timer = setInterval(() => void load(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [underWay, load]);

  const act = async (work: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await work();
      await load();
    } catch (caught) {
      setError(caught);
    }
  };
  const details = (job: JobRow) => act(async () => setOpen(await api<{ job: JobRow; reasons: JobReason[] }>('GET', `/jobs/${job.id}`)));

  return (
    <>
      <PageTitle>Jobs</PageTitle>
      <p class="muted">
        A job runs one endpoint over many inputs, each charged as one request. Keys start them with <code>POST /jobs</code>,{' '}
        <code>pagejson jobs start</code> or the MCP tool <code>startJob</code>.
      </p>
      <ErrorBox error={error} />
      {jobs === undefined ? (
        <p>Loading…</p>
      ) : jobs.length === 0 ? (
        <p>No jobs yet.</p>
      ) : (
        <table class="list">
          <caption class="visually-hidden">Jobs, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Job</th>
              <th scope="col">Key</th>
              <th scope="col">State</th>
              <th scope="col">Progress</th>
              <th scope="col" class="number">
                Data
              </th>
              <th scope="col" class="number">
                Failed
              </th>
              <th scope="col" class="number">
                Skipped
              </th>
              <th scope="col" class="number">
                Credits
              </th>
              <th scope="col">Started</th>
              <th scope="col">Results</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {jobs.map((job) => (
              <tr key={job.id}>
                <th scope="row">
                  <Link href={`/endpoints/${job.apiId}`}>{job.apiId}</Link>
                  <div>
                    <code class="small muted">{job.id}</code>
                  </div>
                </th>
                <td>{job.keyLabel ?? job.keyId ?? '—'}</td>
                <td>
                  <span class={`badge job-${job.state}`}>{job.state}</span>
                </td>
                <td>
                  <Progress job={job} />
                </td>
                <td class="number">{job.done}</td>
                <td class="number">{job.failed}</td>
                <td class="number">{job.skipped}</td>
                <td class="number">{job.credits}</td>
                <td>{when(job.startedAt ?? job.createdAt)}</td>
                <td>
                  <Downloads job={job} />
                </td>
                <td>
                  <span class="row-actions">
                    <button type="button" class="secondary small" onClick={() => void details(job)} aria-label={`Reasons of ${job.id}`}>
                      Reasons
                    </button>
                    {FINISHED.has(job.state) ? null : (
                      <button
                        type="button"
                        class="danger small"
                        aria-label={`Cancel ${job.id}`}
                        onClick={() =>
                          confirm(`Cancel ${job.id}? Inputs under way end; the rest end as cancelled.`) &&
                          void act(() => api('POST', `/jobs/${job.id}/cancel`))
                        }
                      >
                        Cancel
                      </button>
                    )}
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {open ? <Reasons job={open.job} reasons={open.reasons} /> : null}
    </>
  );
}
