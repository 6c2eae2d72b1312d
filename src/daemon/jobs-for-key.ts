import { verifyApiKey } from '../core/access/key-service.js';
import type { ApiKeyRecord } from '../core/state/types.js';
import { PagejsonError } from '../core/shared/errors.js';
import { wireText } from '../core/shared/error-table.js';
import { expandSource } from '../core/jobs/job-inputs.js';
import { daemonItemRetriever } from '../core/jobs/daemon-retriever.js';
import { createSitemapFetcher } from '../core/jobs/sitemap-fetch.js';
import { JOB_ID_PATTERN } from '../core/jobs/embedded-queue.js';
import type { JobRecord } from '../core/jobs/types.js';
import type { Runtime } from '../core/runtime.js';
import { inScope } from './key-scope.js';
import { parseJobBody } from './routes/jobs-body.js';

/**
 * A key's jobs, as `/jobs`, `/mcp` and the dashboard reach them (docs/jobs.md): started only on endpoints in
 * the key's scope, seen only by the key that started them (another key's job is `no such job`).
 */
export const MAX_JOB_CONCURRENCY = 64;

/** The key's record when the text is a key that may be used at all (in scope of anything or not). */
export async function jobKeyOf(runtime: Runtime, apikey: string): Promise<ApiKeyRecord | undefined> {
  const verdict = await verifyApiKey(runtime.store, apikey, '', runtime.now());
  return verdict.ok || verdict.reason === 'scope' ? verdict.record : undefined;
}

export async function ownJob(runtime: Runtime, keyId: string, id: string): Promise<JobRecord> {
  const job = JOB_ID_PATTERN.test(id) ? await runtime.jobs.get(id) : undefined;
  if (!job || job.keyId !== keyId)
    throw new PagejsonError('JOB_NOT_FOUND', wireText('JOB_NOT_FOUND'), { context: { id: id.slice(0, 40) } });
  return job;
}

export async function ownJobs(runtime: Runtime, keyId: string): Promise<JobRecord[]> {
  return (await runtime.jobs.list()).filter((job) => job.keyId === keyId);
}

function endpointFor(runtime: Runtime, key: ApiKeyRecord, apiId: string) {
  const config = runtime.configs.get(apiId);
  if (!config || !inScope(key.scope, config))
    throw new PagejsonError('NO_DATA', wireText('NO_DATA'), { context: { apiId: apiId.slice(0, 100) } });
  return config;
}

/** Checks a job's body (`POST /jobs`'s shape), reads its inputs and starts it for the key. */
export async function startJobForKey(runtime: Runtime, key: ApiKeyRecord, raw: unknown): Promise<JobRecord> {
  const { jobs, fetch } = runtime.settings;
  const body = parseJobBody(raw, { maxInputs: jobs.maxInputs, maxConcurrency: MAX_JOB_CONCURRENCY });
  const config = endpointFor(runtime, key, body.apiId);
  if (body.source.kind === 'from') endpointFor(runtime, key, body.source.from.apiId);
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
  return runtime.jobs.start({
    apiId: config.apiId,
    source: body.source,
    items,
    concurrency: Math.min(body.concurrency ?? jobs.concurrency, MAX_JOB_CONCURRENCY),
    webhook: body.webhook,
    keyId: key.id,
  });
}
