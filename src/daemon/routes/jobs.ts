import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { verifyApiKey } from '../../core/access/key-service.js';
import type { ApiKeyRecord } from '../../core/state/types.js';
import { PagejsonError } from '../../core/shared/errors.js';
import { wireText } from '../../core/shared/error-table.js';
import { expandSource } from '../../core/jobs/job-inputs.js';
import { daemonItemRetriever } from '../../core/jobs/daemon-retriever.js';
import { createSitemapFetcher } from '../../core/jobs/sitemap-fetch.js';
import { resultsAs, type ResultsFormat } from '../../core/jobs/results-format.js';
import { JOB_ID_PATTERN } from '../../core/jobs/embedded-queue.js';
import type { JobRecord } from '../../core/jobs/types.js';
import { jobView } from '../../core/jobs/job-view.js';
import type { Runtime } from '../../core/runtime.js';
import { errorEnvelope, MESSAGES } from '../errors.js';
import { inScope } from '../key-scope.js';
import { JSON_UTF8 } from './external.js';
import { parseJobBody } from './jobs-body.js';

/**
 * Jobs on the wire (docs/jobs.md): `POST /jobs` starts one, `GET /jobs` lists the key's, `GET /jobs/{id}` its
 * state and counts, `GET /jobs/{id}/results` its lines (NDJSON, `?format=csv|json`, `?errors=only`), `DELETE
 * /jobs/{id}` cancels it. The `apikey` header and the envelope as everywhere; a key sees and starts only its own
 * jobs, on endpoints in its scope; another key's job is `no such job`, as one that does not exist.
 */
const JOBS_BODY_LIMIT = 32 * 1024 * 1024;
const MAX_CONCURRENCY = 64;

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
    const verdict = await verifyApiKey(runtime.store, apikey, '', runtime.now());
    if (verdict.ok || verdict.reason === 'scope') return verdict.record;
    await reply
      .code(401)
      .type(JSON_UTF8)
      .send(errorEnvelope([{ message: MESSAGES.keyInvalid, code: 'KEY_INVALID' }]));
    return undefined;
  }

  async function ownJob(key: ApiKeyRecord, id: string): Promise<JobRecord> {
    const job = JOB_ID_PATTERN.test(id) ? await runtime.jobs.get(id) : undefined;
    if (!job || job.keyId !== key.id)
      throw new PagejsonError('JOB_NOT_FOUND', wireText('JOB_NOT_FOUND'), { context: { id: id.slice(0, 40) } });
    return job;
  }

  const endpointFor = (key: ApiKeyRecord, apiId: string) => {
    const config = runtime.configs.get(apiId);
    if (!config || !inScope(key.scope, config))
      throw new PagejsonError('NO_DATA', wireText('NO_DATA'), { context: { apiId: apiId.slice(0, 100) } });
    return config;
  };

  app.post('/jobs', { bodyLimit: JOBS_BODY_LIMIT }, async (request, reply) => {
    const key = await keyOf(request, reply);
    if (!key) return reply;
    const { jobs, fetch } = runtime.settings;
    const body = parseJobBody(request.body, { maxInputs: jobs.maxInputs, maxConcurrency: MAX_CONCURRENCY });
    const config = endpointFor(key, body.apiId);
    if (body.source.kind === 'from') endpointFor(key, body.source.from.apiId);
    const items = await expandSource(
      config,
      body.source,
      {
        fetchText: createSitemapFetcher({
          allowPrivateNetworks: fetch.allowPrivateNetworks,
          timeoutMs: fetch.timeoutMs,
          maxBytes: 64 * 1024 * 1024,
        }),
        // The list is read as the key would read it: its scope, its credits.
        answerOf: async (apiId) =>
          (await daemonItemRetriever(runtime.retrieval, { apiId, keyId: key.id }, runtime.settings.credits.enabled)({})).data,
      },
      { maxInputs: jobs.maxInputs, ...(body.limit !== undefined ? { limit: body.limit } : {}) },
    );
    const job = await runtime.jobs.start({
      apiId: config.apiId,
      source: body.source,
      items,
      concurrency: Math.min(body.concurrency ?? jobs.concurrency, MAX_CONCURRENCY),
      webhook: body.webhook,
      keyId: key.id,
    });
    return send(reply, 202, { id: job.id, state: job.state, total: job.counts.total });
  });

  app.get('/jobs', async (request, reply) => {
    const key = await keyOf(request, reply);
    if (!key) return reply;
    const own = (await runtime.jobs.list()).filter((job) => job.keyId === key.id);
    return send(reply, 200, own.map(jobView));
  });

  app.get<{ Params: { id: string } }>('/jobs/:id', async (request, reply) => {
    const key = await keyOf(request, reply);
    if (!key) return reply;
    return send(reply, 200, jobView(await ownJob(key, request.params.id)));
  });

  app.delete<{ Params: { id: string } }>('/jobs/:id', async (request, reply) => {
    const key = await keyOf(request, reply);
    if (!key) return reply;
    const job = await ownJob(key, request.params.id);
    return send(reply, 200, jobView((await runtime.jobs.cancel(job.id)) ?? job));
  });

  app.get<{ Params: { id: string }; Querystring: { format?: string; errors?: string } }>('/jobs/:id/results', async (request, reply) => {
    const key = await keyOf(request, reply);
    if (!key) return reply;
    const job = await ownJob(key, request.params.id);
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
