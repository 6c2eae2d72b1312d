import { parentPort, workerData } from 'node:worker_threads';
import { generateConfig } from './generate.js';
import { createModelResolver } from '../models/index.js';
import { useDocumentLimits } from '../extract/index.js';
import type { FetchRequest, FetchResult, Scraper } from '../fetch/index.js';
import { errorFromData, errorToData, type GenerationJob, type GenerationMessage, type WorkerReply } from './protocol.js';

/**
 * One generation in its own thread (see isolated.ts): the page is parsed and the model runs here, so a hostile
 * page can hold this thread, never the daemon's event loop. Fetches go back to the parent, whose scrapers
 * (address guard, deadline, byte cap) do them.
 */
const job = workerData as GenerationJob;
const port = parentPort!;
// The project's document limits for every parse here (the models' and the sample's), not only the first:
// a project that raised extraction.maxDepth or maxElements for its large pages generates from them too.
if (job.limits) useDocumentLimits(job.limits);
const models = createModelResolver({ models: job.models, env: job.env, timeoutMs: job.modelTimeoutMs, dataDir: job.dataDir });

let pending: { resolve: (page: FetchResult) => void; reject: (error: unknown) => void } | undefined;
port.on('message', (message: GenerationMessage) => {
  if (message.kind === 'page') pending?.resolve(message.page);
  else if (message.kind === 'fetch-failed') pending?.reject(errorFromData(message.error));
  pending = undefined;
});

const viaParent: Scraper = {
  name: 'http',
  fetch: (request: FetchRequest) =>
    new Promise<FetchResult>((resolve, reject) => {
      pending = { resolve, reject };
      // Everything the parent's scraper needs (the CLI's generate runs here too, with --header, --proxy, --login).
      const { signal: _signal, steps: _steps, loginSession: _session, ...data } = request;
      port.postMessage({ kind: 'fetch', request: data } satisfies WorkerReply);
    }),
  close: async () => undefined,
};

generateConfig(job.request, {
  scraperFor: () => viaParent,
  modelFor: (name) => models.get(name),
  now: () => new Date(job.now),
  ...(job.limits ? { limits: job.limits } : {}),
}).then(
  (result) =>
    port.postMessage({
      kind: 'done',
      result: {
        config: result.config,
        sample: result.sample,
        finalUrl: result.finalUrl,
        ...(result.usage ? { usage: result.usage } : {}),
        ...(result.nextLink ? { nextLink: result.nextLink } : {}),
        ...(result.fieldNotes ? { fieldNotes: result.fieldNotes } : {}),
      },
    } satisfies WorkerReply),
  (error: unknown) =>
    port.postMessage({
      kind: 'failed',
      error: errorToData(error, { code: 'INTERNAL', prefix: 'generation failed: ' }),
    } satisfies WorkerReply),
);
