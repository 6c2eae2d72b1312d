import { isPagejsonError, wireText, type PagejsonError } from '../shared/index.js';
import type { ItemRetriever, JobCounts, JobItem, ResultLine } from './types.js';

/**
 * Runs a job's items (docs/jobs.md, "Never silent"): each item that has no line yet is retrieved once, by at
 * most `concurrency` at a time, and ends in exactly one line: data, an error with its reason, or skipped with
 * its reason. An item whose retrieval stops moving past `itemTimeoutMs` is abandoned and tried again, at most
 * `attempts` times in all. Running out of credits stops the job: the items not run yet end as NO_CREDITS lines.
 */
export interface RunnerDeps {
  retrieveItem: ItemRetriever;
  /** Where lines go, in the order they end; written before the counts move. */
  append(line: ResultLine): void;
  /** Items that already have a line (a resumed job): not run again. */
  finished: ReadonlySet<number>;
  /** The counts so far (a resumed job's); updated in place as lines are written. */
  counts: JobCounts;
  concurrency: number;
  /** Stops the job (cancel, shutdown): items not started end as `reason` lines unless `keepPending`. */
  signal?: AbortSignal;
  itemTimeoutMs: number;
  attempts?: number;
  /** The envelope's error objects of a failure (the daemon: its wire messages). */
  errorsOf?(error: unknown): Array<{ message: string; code: string }>;
  onLine?(line: ResultLine, counts: JobCounts): void;
}

export type RunEnd =
  | { state: 'done' }
  | { state: 'failed'; reason: string }
  | { state: 'cancelled'; reason: string }
  /** Stopped with items left (a shutdown): the job resumes from its lines. */
  | { state: 'interrupted' };

const defaultErrorsOf = (error: unknown) =>
  isPagejsonError(error) ? [{ message: error.message, code: error.code }] : [{ message: wireText('INTERNAL'), code: 'INTERNAL' }];

function lineOf(item: JobItem, fields: Pick<ResultLine, 'outcome' | 'data' | 'errors' | 'health' | 'fetchedAt'>, credits = 0): ResultLine {
  return {
    index: item.index,
    input: item.input,
    ...fields,
    ...(credits > 0 ? { credits: credits / 1000 } : {}),
    ...(item.item !== undefined ? { item: item.item } : {}),
  };
}

export const skippedLine = (item: JobItem, code: string, message: string): ResultLine =>
  lineOf(item, { outcome: 'skipped', data: null, errors: [{ message, code }], health: null, fetchedAt: null });

/** One retrieval raced against the stall timer: a stalled one is aborted and reported as `stalled`. */
async function attempt(deps: RunnerDeps, values: Record<string, string>): Promise<Awaited<ReturnType<ItemRetriever>> | 'stalled'> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const stalled = new Promise<'stalled'>((resolve) => {
    timer = setTimeout(() => resolve('stalled'), deps.itemTimeoutMs);
  });
  try {
    return await Promise.race([deps.retrieveItem(values, controller.signal), stalled]);
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
}

async function runItem(deps: RunnerDeps, item: JobItem): Promise<ResultLine> {
  const attempts = deps.attempts ?? 3;
  for (let tried = 1; ; tried += 1) {
    try {
      const answer = await attempt(deps, item.values!);
      if (answer !== 'stalled')
        return lineOf(
          item,
          { outcome: 'data', data: answer.data, errors: null, health: answer.health, fetchedAt: answer.fetchedAt },
          answer.milliCredits,
        );
      if (tried >= attempts) {
        const message = `the item stopped moving for ${deps.itemTimeoutMs} ms, ${attempts} times`;
        return lineOf(item, { outcome: 'error', data: null, errors: [{ message, code: 'FETCH_TIMEOUT' }], health: null, fetchedAt: null });
      }
    } catch (error) {
      // No credits stops the job; a daemon stopping refunded the item, which runs again when the job resumes.
      if (isPagejsonError(error) && (error.code === 'NO_CREDITS' || error.code === 'SHUTTING_DOWN')) throw error;
      return lineOf(item, {
        outcome: 'error',
        data: null,
        errors: (deps.errorsOf ?? defaultErrorsOf)(error),
        health: null,
        fetchedAt: null,
      });
    }
  }
}

function count(counts: JobCounts, line: ResultLine): void {
  if (line.outcome === 'data') counts.done += 1;
  else if (line.outcome === 'error') counts.failed += 1;
  else counts.skipped += 1;
  counts.credits += Math.round((line.credits ?? 0) * 1000);
}

/** Runs every item without a line; resolves when each has one, or the job stopped. */
export async function runItems(items: readonly JobItem[], deps: RunnerDeps): Promise<RunEnd> {
  const write = (line: ResultLine) => {
    deps.append(line);
    count(deps.counts, line);
    deps.onLine?.(line, deps.counts);
  };
  let next = 0;
  let stop: { code: string; message: string; state: 'failed' | 'cancelled' } | undefined;
  const worker = async (): Promise<void> => {
    while (next < items.length && !stop && !deps.signal?.aborted) {
      const item = items[next++]!;
      if (deps.finished.has(item.index)) continue;
      if (item.skip) {
        write(skippedLine(item, item.skip.code, item.skip.message));
        continue;
      }
      try {
        // An item that ended is written even while the job stops: it was charged, so it must not run again.
        write(await runItem(deps, item));
      } catch (error) {
        if ((error as PagejsonError).code === 'SHUTTING_DOWN') return;
        stop ??= { code: 'NO_CREDITS', message: (error as PagejsonError).message, state: 'failed' };
        write(
          lineOf(item, {
            outcome: 'error',
            data: null,
            errors: [{ message: stop.message, code: stop.code }],
            health: null,
            fetchedAt: null,
          }),
        );
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, deps.concurrency) }, worker));
  if (deps.signal?.aborted && deps.signal.reason === 'shutdown') return { state: 'interrupted' };
  if (deps.signal?.aborted) stop ??= { code: 'CANCELLED', message: 'the job was cancelled', state: 'cancelled' };
  if (!stop) return { state: 'done' };
  // Every input ends in one line: those not run say why.
  for (let index = next; index < items.length; index += 1) {
    const item = items[index]!;
    if (deps.finished.has(item.index)) continue;
    write(
      lineOf(item, {
        outcome: stop.code === 'CANCELLED' ? 'skipped' : 'error',
        data: null,
        errors: [{ message: stop.message, code: stop.code }],
        health: null,
        fetchedAt: null,
      }),
    );
  }
  return { state: stop.state, reason: stop.message };
}
