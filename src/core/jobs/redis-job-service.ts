import type { Job, Queue as BullQueue, Worker as BullWorker } from 'bullmq';
import type { Redis as IORedis } from 'ioredis';
import { closeRedis, connectRedis, type RedisClient } from '../state/index.js';
import { newRecord, type JobService, type JobServiceDeps, type StartJob } from './job-service.js';
import { createRedisJobLines, type RedisJobLines } from './redis-job-lines.js';
import { runItems, skippedLine } from './runner.js';
import { emptyCounts, FINISHED_STATES, type JobItem, type JobRecord, type ResultLine } from './types.js';

/**
 * Jobs on BullMQ queues in the Redis the daemons share (docs/jobs.md, "On Redis"): each input that runs is one
 * BullMQ job of the queue `pagejson-jobs`; every daemon on that Redis and every `pagejson worker` takes them,
 * `jobs.concurrency` at a time each. A worker that dies loses its lock after `jobs.workerLockMs`, and BullMQ's
 * stalled check gives its items to another; an item whose workers died three times ends as a FETCH_TIMEOUT
 * line. Records and lines are in Redis (redis-job-lines.ts), so any daemon answers for any job.
 */
export const JOBS_QUEUE = 'pagejson-jobs';
const BULL_PREFIX = 'pagejson:bull';
/** Times an item may lose its worker before it ends as a line (BullMQ's own limit is above it). */
const WORKER_DEATHS = 3;
const ATTEMPTS = 5;

interface ItemData {
  jobId: string;
  item: JobItem;
}

export interface RedisJobServiceDeps extends Omit<JobServiceDeps, 'dir' | 'heartbeatMs'> {
  redisUrl: string;
  /** Items of this process's worker at once. */
  concurrency: number;
  /** A dead worker's items are taken by another after this long. */
  lockMs: number;
  /** Take items here (daemons and `pagejson worker`); false: only start and read jobs. */
  work?: boolean;
}

const errorLine = (item: JobItem, code: string, message: string): ResultLine => ({
  index: item.index,
  input: item.input,
  outcome: 'error',
  data: null,
  errors: [{ message, code }],
  health: null,
  fetchedAt: null,
  ...(item.item !== undefined ? { item: item.item } : {}),
});

/** The line of an item whose job stopped: cancelled ones skipped, the rest with the job's reason. */
function stoppedLine(record: JobRecord, item: JobItem): ResultLine {
  if (record.state === 'cancelled') return skippedLine(item, 'CANCELLED', 'the job was cancelled');
  return errorLine(item, 'NO_CREDITS', record.reason ?? 'the job failed');
}

export async function createRedisJobService(deps: RedisJobServiceDeps): Promise<JobService> {
  // BullMQ loads only in a process given a Redis URL, as the Redis client does.
  const { Queue, Worker } = await import('bullmq');
  const client = await connectRedis({ url: deps.redisUrl });
  const lines = createRedisJobLines(client);
  const stamp = () => deps.now().toISOString();
  const connection = await connectBullmq(deps.redisUrl);
  const queue: BullQueue<ItemData> = new Queue<ItemData>(JOBS_QUEUE, { connection, prefix: BULL_PREFIX });
  // As the worker's: a lost connection is retried by the client; a command that fails reaches its caller.
  queue.on('error', () => undefined);

  const settle = async (jobId: string, line: ResultLine, apiId: string) => {
    const { added, ended } = await lines.append(jobId, line);
    if (added) deps.onEvent?.({ kind: 'job-item', apiId, jobId, index: line.index, outcome: line.outcome });
    const record = await lines.get(jobId);
    if (record && ended >= record.counts.total && (await lines.finish(jobId, stamp()))) {
      const finished = await lines.get(jobId);
      if (finished) deps.onEvent?.({ kind: 'job-finished', job: finished });
    }
  };

  const worker = deps.work === false ? undefined : startWorker(Worker, deps, lines, settle, connection);

  return {
    async start(input: StartJob) {
      const record = newRecord(input, stamp());
      await lines.create(record);
      const runnable = input.items.filter((item) => !item.skip);
      for (let at = 0; at < runnable.length; at += 500)
        await queue.addBulk(
          runnable.slice(at, at + 500).map((item) => ({
            name: 'item',
            data: { jobId: record.id, item },
            opts: { jobId: `${record.id}-${item.index}`, attempts: ATTEMPTS, backoff: { type: 'exponential', delay: 1_000 } },
          })),
        );
      for (const item of input.items)
        if (item.skip) await settle(record.id, skippedLine(item, item.skip.code, item.skip.message), record.apiId);
      if (input.items.length === 0 && (await lines.finish(record.id, stamp()))) deps.onEvent?.({ kind: 'job-finished', job: record });
      return record;
    },
    get: (id) => lines.get(id),
    list: () => lines.list(),
    async cancel(id) {
      await lines.move(id, ['queued', 'running'], 'cancelled', 'reason', 'the job was cancelled');
      return lines.get(id);
    },
    results: (id) => lines.texts(id),
    // BullMQ keeps the items: nothing to resume.
    resume: async () => 0,
    close: () => closeWithin(CLOSE_WAIT_MS, worker, queue, connection, client),
  };
}

/**
 * BullMQ's own connection is ioredis, the client it is built and tested on: with `@redis/client` (what the rest of
 * the project uses) a worker whose Redis went away retried without a pause and starved the event loop, so the
 * daemon could neither answer nor stop. Commands wait for a reconnect (`maxRetriesPerRequest: null`, as BullMQ
 * asks for workers); its close is bounded instead (closeWithin).
 */
async function connectBullmq(url: string): Promise<IORedis> {
  const { Redis } = await import('ioredis');
  const connection = new Redis(url, {
    maxRetriesPerRequest: null,
    retryStrategy: (attempt: number) => Math.min(50 * 2 ** attempt, 2_000),
  });
  // Connection errors while Redis is away are expected (it reconnects by itself); the job lines report failures.
  connection.on('error', () => undefined);
  return connection;
}

/** How long a close waits for BullMQ's in-flight commands; past it (Redis gone), the connections are cut. */
const CLOSE_WAIT_MS = 3_000;

/** Closes the worker, the queue and both connections, in at most `waitMs` when Redis does not answer. */
async function closeWithin(
  waitMs: number,
  worker: BullWorker | undefined,
  queue: BullQueue,
  connection: IORedis,
  client: RedisClient,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const graceful = (async () => {
    await worker?.close();
    await queue.close();
    await connection.quit();
    await closeRedis(client);
  })();
  const cut = new Promise<'cut'>((resolve) => {
    timer = setTimeout(() => resolve('cut'), waitMs);
  });
  const ended = await Promise.race([graceful.then(() => 'closed' as const), cut]).finally(() => clearTimeout(timer));
  if (ended === 'cut') {
    graceful.catch(() => undefined);
    void worker?.close(true).catch(() => undefined);
    connection.disconnect();
    if (client.isOpen) client.destroy();
  }
}

type Settle = (jobId: string, line: ResultLine, apiId: string) => Promise<void>;

/** One item: its line, unless the job stopped (then the stop's line) or the process is stopping (BullMQ retries it). */
async function runOne(deps: RedisJobServiceDeps, lines: RedisJobLines, settle: Settle, job: Job<ItemData>): Promise<void> {
  const { jobId, item } = job.data;
  const record = await lines.get(jobId);
  if (!record || (FINISHED_STATES.has(record.state) && record.finishedAt)) return;
  if (record.state === 'cancelled' || record.state === 'failed') return settle(jobId, stoppedLine(record, item), record.apiId);
  if (job.stalledCounter >= WORKER_DEATHS) {
    const message = `the workers running the item stopped ${job.stalledCounter} times`;
    return settle(jobId, errorLine(item, 'FETCH_TIMEOUT', message), record.apiId);
  }
  await lines.move(jobId, ['queued'], 'running', 'startedAt', deps.now().toISOString());
  const ended: ResultLine[] = [];
  const politeness = deps.politenessFor?.(record);
  const end = await runItems([item], {
    retrieveItem: deps.retrieverFor(record),
    append: (line) => ended.push(line),
    finished: new Set(),
    counts: emptyCounts(1),
    concurrency: 1,
    itemTimeoutMs: deps.itemTimeoutMs,
    ...(deps.errorsOf ? { errorsOf: deps.errorsOf } : {}),
    ...(politeness ? { politeness } : {}),
  });
  // No line: the daemon was stopping and refunded it; BullMQ runs it again (here or elsewhere).
  if (ended.length === 0) throw new Error('the item was not run: the process is stopping');
  if (end.state === 'failed') await lines.move(jobId, ['queued', 'running'], 'failed', 'reason', end.reason);
  await settle(jobId, ended[0]!, record.apiId);
}

function startWorker(Worker: typeof BullWorker, deps: RedisJobServiceDeps, lines: RedisJobLines, settle: Settle, connection: IORedis) {
  const worker = new Worker<ItemData>(JOBS_QUEUE, (job) => runOne(deps, lines, settle, job), {
    connection,
    prefix: BULL_PREFIX,
    concurrency: deps.concurrency,
    lockDuration: deps.lockMs,
    stalledInterval: deps.lockMs,
    maxStalledCount: WORKER_DEATHS + 2,
    removeOnComplete: { count: 0 },
    removeOnFail: { age: 24 * 3600 },
  });
  worker.on('failed', (job, error) => {
    // The last attempt failed outside the item (Redis, a bug): the input still ends in a line.
    if (!job || job.attemptsMade < ATTEMPTS) return;
    const message = `the item could not be run: ${error.message.slice(0, 200)}`;
    void lines
      .get(job.data.jobId)
      .then((record) => record && settle(job.data.jobId, errorLine(job.data.item, 'INTERNAL', message), record.apiId))
      .catch(() => undefined);
  });
  worker.on('error', () => undefined);
  return worker;
}
