import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import PQueue from 'p-queue';
import { Piscina } from 'piscina';
import { isPagejsonError, PagejsonError, rememberJsonText } from '../../shared/index.js';
import { startDeadline } from '../../fetch/index.js';
import { structureFingerprint } from '../engine/memo.js';
import { extractionError, extractionTimeout } from './errors.js';
import { DEFAULT_RELEASE_POLICY, watchIdlePool } from './idle-release.js';
import type {
  ExtractionJob,
  ExtractionOutcome,
  ExtractionSettings,
  Extractor,
  WireExtractionJob,
  WireExtractionOutcome,
  WireExtractionReply,
  WireReleaseReply,
} from './types.js';

/**
 * Extraction in a pool of worker threads (piscina), sized to the cores: parsing and selecting never run on
 * the daemon's event loop, so `/healthz`, cached answers and every other caller go on while a page is read.
 * Each job has a budget (`extraction.timeoutMs`): past it the job's thread is terminated (piscina ends a
 * running task's worker on abort) and replaced, and the caller gets EXTRACTION_TIMEOUT naming the budget.
 */
export interface WorkerPoolOptions extends ExtractionSettings {
  /** Threads (default: the machine's available parallelism). */
  threads?: number;
  /**
   * After this long with no job, at least, every thread gives its heap back (default 2 s; the wait grows when
   * work keeps coming back soon after a release: idle-release.ts). 0: never.
   */
  idleReleaseMs?: number;
  /** Told of each thread's release (for metrics and tests). */
  onIdleRelease?: (reply: WireReleaseReply) => void;
}

/**
 * The compiled worker. Under the test runner this module runs from TypeScript sources, which a worker
 * thread cannot load: the built file of the same path under dist/ is used then.
 */
export function workerFile(): string {
  const beside = fileURLToPath(new URL('./extraction-worker.cjs', import.meta.url));
  if (existsSync(beside)) return beside;
  const built = fileURLToPath(new URL('../../../../dist/src/core/extract/workers/extraction-worker.cjs', import.meta.url));
  if (existsSync(built)) return built;
  throw new PagejsonError('INTERNAL', 'the extraction worker is not built', { hint: 'run `npm run build`' });
}

export function createWorkerPoolExtractor(options: WorkerPoolOptions): Extractor {
  const threads = Math.max(1, options.threads ?? availableParallelism());
  const pool = new Piscina({
    filename: workerFile(),
    // Every thread stays: ending idle ones (one kept, the others after 5 s without work) was measured, and
    // each burst of misses then paid new threads' start and cold code (uncached CPU 2.08× its baseline's
    // against 1.82–1.92× with all kept), while RSS showed no gain.
    minThreads: threads,
    maxThreads: threads,
    idleTimeout: 60_000,
    workerData: { limits: options.limits },
    // A page that makes a worker balloon ends that worker, not the daemon. The young generation must hold one
    // parse's live document: at 8 MB (semi-spaces of ~1 MB) a 100 KB page's tree outlived the scavenges that
    // ran while it was built, was promoted, and filled the old generation with dead trees (a full collection
    // every ~27 extractions; GC half of an extraction's time, 2.9 ms against 1.3 ms at 16 MB, and 5.7 against
    // 2.8 ms for a 300 KB page). 16 MB holds pages of a few hundred KB; V8's default (up to 48 MB) would let an
    // idle worker keep ~35 MB more (docs/performance.md, "Profiles" 19).
    resourceLimits: { maxOldGenerationSizeMb: 512, maxYoungGenerationSizeMb: 16 },
    // Wait and run histograms per task that nothing reads.
    recordTiming: false,
  });
  /**
   * Jobs wait here, in the order they came, and reach piscina only when a thread is free. Piscina's own queue
   * reorders jobs that carry an AbortSignal (ours all do, for their budget): a job it took off its queue and
   * could not hand to a busy thread goes to the back (or, with `stricterFIFO`, a newly come one to the front).
   * Under sustained misses (the bench's 1 MB pages, eight connections, one thread) one job waited 5 s while
   * 80 later ones ran, failed its budget, and the failure was remembered for every caller. A job whose budget
   * ends while it waits here leaves the queue; one that runs is ended by piscina, which stops its thread.
   */
  const queue = new PQueue({ concurrency: threads });
  let closed = false;
  const idle = watchIdlePool(
    (task) => queue.add(() => pool.run(task) as Promise<WireReleaseReply>),
    threads,
    {
      minMs: options.idleReleaseMs ?? DEFAULT_RELEASE_POLICY.minMs,
      ...(options.onIdleRelease ? { onRelease: options.onIdleRelease } : {}),
    },
    () => closed,
  );

  return {
    name: 'worker-pool',
    async extract(job, signal) {
      if (closed) throw new PagejsonError('SHUTTING_DOWN', 'the extraction pool is closed');
      const { deadline: budget, signal: combined, dispose } = startDeadline(options.timeoutMs, signal);
      let reply: WireExtractionReply;
      idle.jobStarted();
      try {
        const moved = handedOverBuffer(job);
        const wire = toWire(job);
        reply = (await queue.add(() => pool.run(wire, { signal: combined, ...(moved ? { transferList: [moved] } : {}) }), {
          signal: combined,
        })) as WireExtractionReply;
      } catch (error) {
        if (budget.aborted) throw extractionTimeout(options.timeoutMs, job.config.apiId);
        if (signal?.aborted)
          throw signal.reason instanceof Error ? signal.reason : new PagejsonError('FETCH_TIMEOUT', 'the request was cancelled');
        if (isPagejsonError(error)) throw error;
        // The worker died (out of memory, a crash in native code): piscina replaces it; this job failed.
        throw new PagejsonError(
          'EXTRACTION_FAILED',
          `extraction failed: the worker stopped (${(error as Error)?.message ?? 'unknown reason'})`,
          {
            context: { apiId: job.config.apiId },
            hint: 'the page may be too large for the extraction worker; try a narrower section selector',
          },
        );
      } finally {
        dispose();
        idle.jobEnded();
      }
      if (!reply.ok) throw extractionError(reply, job.config.apiId);
      return fromWire(reply.outcome);
    },
    async close() {
      if (closed) return;
      closed = true;
      idle.stop();
      await pool.destroy();
    },
  };
}

/**
 * The page's memory, when the caller handed it over and it is the page's alone: moved to the thread instead of
 * copied through the message. Once posted it is freed by the thread as soon as its parse is done, where a
 * copy left here would wait for a full collection of the daemon's heap (pages wait in the pool's queue long
 * enough to be promoted): hundreds of pages' bytes held between collections (docs/performance.md, "Memory").
 * A buffer that is a slice of a shared one (Node's pool for small buffers) is copied: moving it would take
 * its neighbours with it.
 */
function handedOverBuffer(job: ExtractionJob): ArrayBuffer | undefined {
  const bytes = job.body?.bytes;
  if (!job.handOver || bytes === undefined) return undefined;
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.byteLength > 0;
  return whole && bytes.buffer instanceof ArrayBuffer ? bytes.buffer : undefined;
}

/** Fingerprints made once per loaded config (its structure array is the same object from one request to the next). */
const fingerprints = new WeakMap<object, { selector: string; fingerprint: string }>();

function toWire(job: ExtractionJob): WireExtractionJob {
  const { apiId, revision, selector, structure } = job.config;
  let known = fingerprints.get(structure);
  if (known === undefined || known.selector !== selector)
    fingerprints.set(structure, (known = { selector, fingerprint: structureFingerprint(selector, structure) }));
  return { ...job, config: { apiId, revision, selector, fingerprint: known.fingerprint } };
}

/** The data parsed for whoever reads it; its JSON text kept for the response body. */
function fromWire({ dataJson, ...rest }: WireExtractionOutcome): ExtractionOutcome {
  const data = JSON.parse(dataJson) as ExtractionOutcome['data'];
  rememberJsonText(data, dataJson);
  return { ...rest, data };
}
