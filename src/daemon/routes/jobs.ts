import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ApiKeyRecord } from '../../core/state/types.js';
import { PagejsonError } from '../../core/shared/errors.js';
import { resultsAs, type ResultsFormat } from '../../core/jobs/results-format.js';
import { jobView } from '../../core/jobs/job-view.js';
import type { Runtime } from '../../core/runtime.js';
import { errorEnvelope, MESSAGES } from '../errors.js';
import { jobKeyOf, ownJob, ownJobs, startJobForKey } from '../jobs-for-key.js';
import { JSON_UTF8 } from './external.js';

/**
 * Jobs on the wire (docs/jobs.md): `POST /jobs` starts one, `GET /jobs` lists the key's, `GET /jobs/{id}` its
 * state and counts, `GET /jobs/{id}/results` its lines (NDJSON, `?format=csv|json`, `?errors=only`), `DELETE
 * /jobs/{id}` cancels it. The `apikey` header and the envelope as everywhere; a key sees and starts only its own
 * jobs, on endpoints in its scope; another key's job is `no such job`, as one that does not exist.
 */
const JOBS_BODY_LIMIT = 32 * 1024 * 1024;

export function registerJobRoutes(app: FastifyInstance, runtime: Runtime): void {
  const send = (reply: FastifyReply, status: number, data: unknown) =>
    reply
      .code(status)
      .type(JSON_UTF8)
      .send(JSON.stringify({ data, errors: null }));

  /** The key rows: the key's record (in scope of anything or not), else the refusal is sent. */
  async function keyOf(request: FastifyRequest, reply: FastifyReply): Promise<ApiKeyRecord | undefined> {
    const header = request.headers.apikey;
    const apikey = Array.isArray(header) ? header[0] : header;
    if (!apikey) {
      await reply
        .code(401)
        .type(JSON_UTF8)
        .send(errorEnvelope([{ message: MESSAGES.keyMissing, code: 'KEY_MISSING' }]));
      return undefined;
    }
    const record = await jobKeyOf(runtime, apikey);
    if (record) return record;
    await reply
      .code(401)
      .type(JSON_UTF8)
      .send(errorEnvelope([{ message: MESSAGES.keyInvalid, code: 'KEY_INVALID' }]));
    return undefined;
  }

  app.post('/jobs', { bodyLimit: JOBS_BODY_LIMIT }, async (request, reply) => {
    const key = await keyOf(request, reply);
    if (!key) return reply;
    const job = await startJobForKey(runtime, key, request.body);
    return send(reply, 202, { id: job.id, state: job.state, total: job.counts.total });
  });

  app.get('/jobs', async (request, reply) => {
    const key = await keyOf(request, reply);
    if (!key) return reply;
    return send(reply, 200, (await ownJobs(runtime, key.id)).map(jobView));
  });

  app.get<{ Params: { id: string } }>('/jobs/:id', async (request, reply) => {
    const key = await keyOf(request, reply);
    if (!key) return reply;
    return send(reply, 200, jobView(await ownJob(runtime, key.id, request.params.id)));
  });

  app.delete<{ Params: { id: string } }>('/jobs/:id', async (request, reply) => {
    const key = await keyOf(request, reply);
    if (!key) return reply;
    const job = await ownJob(runtime, key.id, request.params.id);
    return send(reply, 200, jobView((await runtime.jobs.cancel(job.id)) ?? job));
  });

  app.get<{ Params: { id: string }; Querystring: { format?: string; errors?: string } }>('/jobs/:id/results', async (request, reply) => {
    const key = await keyOf(request, reply);
    if (!key) return reply;
    const job = await ownJob(runtime, key.id, request.params.id);
    const format = (request.query.format ?? 'ndjson') as ResultsFormat;
    if (!['ndjson', 'csv', 'json'].includes(format))
      throw new PagejsonError('JOB_INVALID', `format ${String(format).slice(0, 40)} is not ndjson, csv or json`);
    const type = format === 'csv' ? 'text/csv; charset=utf-8' : format === 'json' ? JSON_UTF8 : 'application/x-ndjson; charset=utf-8';
    return reply
      .code(200)
      .type(type)
      .send(Readable.from(resultsAs(runtime.jobs.results(job.id), format, { errorsOnly: request.query.errors === 'only' })));
  });
}
