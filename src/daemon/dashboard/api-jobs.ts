import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { JOB_ID_PATTERN } from '../../core/jobs/embedded-queue.js';
import { jobView } from '../../core/jobs/job-view.js';
import { reasonsOf, resultsAs } from '../../core/jobs/results-format.js';
import type { JobRecord } from '../../core/jobs/types.js';
import { PagejsonError } from '../../core/shared/errors.js';
import { parse, type DashboardApiContext } from './api-common.js';

/**
 * The dashboard's Jobs page (docs/dashboard.md): every key's jobs with their progress and counts, one job's
 * failures by reason, cancel, and its results as a download. The operator sees all jobs; each names its key.
 */
const JobIdParam = z.object({ id: z.string().regex(JOB_ID_PATTERN, 'not a job id') });
const ResultsQuery = z
  .object({ format: z.enum(['ndjson', 'csv', 'json']).default('ndjson'), errors: z.enum(['only']).optional() })
  .strict();
/** The newest jobs the page lists. */
const LIST_MAX = 200;

const TYPES = { ndjson: 'application/x-ndjson; charset=utf-8', csv: 'text/csv; charset=utf-8', json: 'application/json; charset=utf-8' };

export function registerJobRoutes(api: FastifyInstance, context: DashboardApiContext): void {
  const { runtime } = context;

  const jobOf = async (params: unknown): Promise<JobRecord> => {
    const { id } = parse(JobIdParam, params, 'job');
    const job = await runtime.jobs.get(id);
    if (!job) throw new PagejsonError('USAGE', `no job ${id}`, { hint: 'the Jobs page lists the jobs there are' });
    return job;
  };
  const row = (job: JobRecord, labels: Map<string, string | null>) => ({
    ...jobView(job),
    keyId: job.keyId ?? null,
    keyLabel: job.keyId ? (labels.get(job.keyId) ?? null) : null,
  });
  const labels = async () => new Map((await runtime.store.listKeys()).map((key) => [key.id, key.label] as const));

  api.get('/jobs', async () => {
    const [jobs, names] = await Promise.all([runtime.jobs.list(), labels()]);
    return { jobs: jobs.slice(0, LIST_MAX).map((job) => row(job, names)), more: jobs.length > LIST_MAX };
  });
  api.get('/jobs/:id', async (request) => {
    const job = await jobOf(request.params);
    return { job: row(job, await labels()), reasons: await reasonsOf(runtime.jobs.results(job.id)) };
  });
  api.post('/jobs/:id/cancel', async (request) => {
    const job = await jobOf(request.params);
    return { job: row((await runtime.jobs.cancel(job.id)) ?? job, await labels()) };
  });
  api.get('/jobs/:id/results', async (request, reply) => {
    const job = await jobOf(request.params);
    const query = parse(ResultsQuery, request.query, 'results');
    const name = `${job.id}${query.errors ? '-errors' : ''}.${query.format}`;
    return reply
      .type(TYPES[query.format])
      .header('content-disposition', `attachment; filename="${name}"`)
      .send(Readable.from(resultsAs(runtime.jobs.results(job.id), query.format, { errorsOnly: query.errors === 'only' })));
  });
}
