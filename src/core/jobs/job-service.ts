import { createJobQueueFiles, newJobId, type JobQueueFiles } from './embedded-queue.js';
import { existsSync } from 'node:fs';
import { fileTexts, type ResultTexts } from './results-format.js';
import { runItems, type ItemPoliteness, type RunEnd } from './runner.js';
import {
  emptyCounts,
  FINISHED_STATES,
  type ItemRetriever,
  type JobItem,
  type JobRecord,
  type JobSource,
  type ResultLine,
} from './types.js';

/**
 * Jobs of one daemon on the embedded queue (docs/jobs.md): started, run in this process, kept current in their
 * files (the record with its counts and a heartbeat every `heartbeatMs`), resumed after a restart from their
 * lines, cancelled by their owner. How an item is retrieved is the caller's (the daemon: its retrieval service,
 * acting for the job's key).
 */
export type JobEvent =
  | { kind: 'job-item'; apiId: string; jobId: string; index: number; outcome: ResultLine['outcome'] }
  | { kind: 'job-finished'; job: JobRecord };

export interface JobServiceDeps {
  /** Where job folders live (`<dataDir>/jobs`). */
  dir: string;
  retrieverFor(record: JobRecord): ItemRetriever;
  /** Job traffic's per-origin turns, robots.txt and 429 pauses (absent: none). */
  politenessFor?(record: JobRecord): ItemPoliteness | undefined;
  errorsOf?(error: unknown): Array<{ message: string; code: string }>;
  itemTimeoutMs: number;
  now(): Date;
  heartbeatMs?: number;
  onEvent?(event: JobEvent): void;
}

export interface StartJob {
  apiId: string;
  source: JobSource;
  items: JobItem[];
  concurrency: number;
  webhook: boolean;
  keyId?: string;
}

export interface JobService {
  start(input: StartJob): Promise<JobRecord>;
  get(id: string): Promise<JobRecord | undefined>;
  list(): Promise<JobRecord[]>;
  /** Cancels a job that has not finished; its items not run end as `cancelled` lines. */
  cancel(id: string): Promise<JobRecord | undefined>;
  /** The job's lines so far, as text (none yet: empty). */
  results(id: string): ResultTexts;
  /** Runs the jobs a stopped process left queued or running (at the daemon's start). */
  resume(): Promise<number>;
  /** Stops running jobs where they are (they resume at the next start). */
  close(): Promise<void>;
}

interface LiveJob {
  record: JobRecord;
  controller: AbortController;
  finished: Promise<void>;
}

export function createJobService(deps: JobServiceDeps): JobService {
  const files = createJobQueueFiles(deps.dir);
  const live = new Map<string, LiveJob>();
  const stamp = () => deps.now().toISOString();

  const run = (record: JobRecord): void => {
    const controller = new AbortController();
    const job: LiveJob = { record, controller, finished: Promise.resolve() };
    live.set(record.id, job);
    job.finished = runJob(files, deps, job, stamp)
      .catch(() => undefined)
      .finally(() => live.delete(record.id));
  };

  return {
    async start(input) {
      const record = newRecord(input, stamp());
      await files.create(record, input.items);
      run(record);
      return { ...record, counts: { ...record.counts } };
    },
    get: async (id) => {
      const running = live.get(id);
      return running ? { ...running.record, counts: { ...running.record.counts } } : files.get(id);
    },
    list: async () => (await files.list()).map((record) => live.get(record.id)?.record ?? record),
    async cancel(id) {
      const running = live.get(id);
      if (running) {
        running.controller.abort('cancel');
        await running.finished;
      }
      return files.get(id);
    },
    results: (id) => {
      const path = files.resultsPath(id);
      return existsSync(path) ? fileTexts(path) : async function* () {};
    },
    async resume() {
      const pending = (await files.list()).filter((record) => !FINISHED_STATES.has(record.state) && !live.has(record.id));
      for (const record of pending) run(record);
      return pending.length;
    },
    async close() {
      const running = [...live.values()];
      for (const job of running) job.controller.abort('shutdown');
      await Promise.all(running.map((job) => job.finished));
    },
  };
}

/** One job from its lines so far to its end (or to a shutdown, which leaves it to resume). */
async function runJob(files: JobQueueFiles, deps: JobServiceDeps, job: LiveJob, stamp: () => string): Promise<void> {
  const items = await files.items(job.record.id);
  const { finished, counts } = files.recover(job.record.id, items.length);
  const record = job.record;
  record.counts = counts;
  record.state = 'running';
  record.startedAt ??= stamp();
  record.heartbeatAt = stamp();
  await files.save(record);
  const writer = files.openResults(record.id);
  const heartbeat = setInterval(() => {
    record.heartbeatAt = stamp();
    void files.save(record).catch(() => undefined);
  }, deps.heartbeatMs ?? 2_000);
  heartbeat.unref();
  let end: RunEnd;
  const politeness = deps.politenessFor?.(record);
  try {
    end = await runItems(items, {
      retrieveItem: deps.retrieverFor(record),
      append: (line) => writer.append(line),
      finished,
      counts,
      concurrency: record.concurrency,
      signal: job.controller.signal,
      itemTimeoutMs: deps.itemTimeoutMs,
      ...(deps.errorsOf ? { errorsOf: deps.errorsOf } : {}),
      ...(politeness ? { politeness } : {}),
      onLine: (line) =>
        deps.onEvent?.({ kind: 'job-item', apiId: record.apiId, jobId: record.id, index: line.index, outcome: line.outcome }),
    });
  } finally {
    clearInterval(heartbeat);
    writer.close();
  }
  if (end.state === 'interrupted') {
    await files.save(record);
    return;
  }
  record.state = end.state;
  if (end.state !== 'done') record.reason = end.reason;
  record.finishedAt = stamp();
  await files.save(record);
  deps.onEvent?.({ kind: 'job-finished', job: { ...record, counts: { ...record.counts } } });
}

/** A job's record as it starts: queued, nothing counted yet (both drivers start jobs so). */
export function newRecord(input: StartJob, now: string): JobRecord {
  return {
    id: newJobId(),
    apiId: input.apiId,
    state: 'queued',
    counts: emptyCounts(input.items.length),
    concurrency: input.concurrency,
    webhook: input.webhook,
    source: input.source.kind,
    ...(input.keyId ? { keyId: input.keyId } : {}),
    createdAt: now,
  };
}
