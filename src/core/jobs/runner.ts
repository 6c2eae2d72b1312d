import { isPagejsonError, wireText, type PagejsonError } from '../shared/index.js';
import type { ItemRetriever, JobCounts, JobItem, ResultLine } from './types.js';
import type { OriginGate } from './origin-gate.js';
import type { RobotsRules } from './robots.js';

/**
 * Runs a job's items (docs/jobs.md, "Never silent"): each item that has no line yet is retrieved once, by at
 * most `concurrency` at a time, and ends in exactly one line: data, an error with its reason, or skipped with
 * its reason. An item whose retrieval stops moving past `itemTimeoutMs` is abandoned and tried again, at most
 * `attempts` times in all. Running out of credits stops the job: the items not run yet end as NO_CREDITS lines.
 * With `politeness`, an item waits for its origin's turn, is refused by robots.txt, and an origin's 429 pauses
 * that origin for every job and runs the item again once the pause is over (never an empty record).
 */
export interface ItemPoliteness {
  /** The page an item's variables fetch (undefined: no URL known before the retrieval; not gated). */
  urlOf(values: Record<string, string>): string | undefined;
  gate: OriginGate;
  /** Absent: robots.txt is not read (`jobs.robots: "ignore"`). */
  robots?: RobotsRules;
}

/** 429s one item meets before it ends as a SOURCE_RATE_LIMITED line. */
export const RATE_LIMITED_TRIES = 5;

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
  politeness?: ItemPoliteness;
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

/** The job stopped while the item waited for its origin's turn: it did not start. */
class NotStarted extends Error {}

/** One attempt in the origin's turn (the wait is not part of the stall timer); a 429 pauses the origin for every job. */
async function politeAttempt(deps: RunnerDeps, origin: string | undefined, values: Record<string, string>) {
  if (!origin || !deps.politeness) return attempt(deps, values);
  let release: () => void;
  try {
    release = await deps.politeness.gate.acquire(origin, deps.signal);
  } catch (error) {
    if (deps.signal?.aborted) throw new NotStarted();
    throw error;
  }
  try {
    return await attempt(deps, values);
  } catch (error) {
    // The pause is set before the slot is given back, so no waiter of this origin starts in between.
    if (isRateLimited(error)) await deps.politeness.gate.pause(origin, pauseMsOf(error));
    throw error;
  } finally {
    release();
  }
}

const originOf = (url: string | undefined): string | undefined => {
  try {
    return url ? new URL(url).origin : undefined;
  } catch {
    return undefined;
  }
};

const errorLine = (item: JobItem, errors: Array<{ message: string; code: string }>) =>
  lineOf(item, { outcome: 'error', data: null, errors, health: null, fetchedAt: null });

const isRateLimited = (error: unknown): error is PagejsonError => isPagejsonError(error) && error.code === 'SOURCE_RATE_LIMITED';

/** The origin's pause after a 429: the fetch layer's Retry-After (or backoff), which it also keeps to itself. */
function pauseMsOf(error: PagejsonError): number {
  const seconds = Number(error.context.retryAfterSeconds);
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 1000;
}

async function runItem(deps: RunnerDeps, item: JobItem): Promise<ResultLine> {
  const attempts = deps.attempts ?? 3;
  const url = deps.politeness?.urlOf(item.values!);
  const refusal = url && deps.politeness?.robots ? await deps.politeness.robots.refusal(url) : undefined;
  if (refusal) return errorLine(item, [{ message: refusal, code: 'ROBOTS_DISALLOWED' }]);
  const origin = originOf(url);
  let limited = 0;
  for (let tried = 1; ; tried += 1) {
    try {
      const answer = await politeAttempt(deps, origin, item.values!);
      if (answer !== 'stalled')
        return lineOf(
          item,
          { outcome: 'data', data: answer.data, errors: null, health: answer.health, fetchedAt: answer.fetchedAt },
          answer.milliCredits,
        );
      if (tried >= attempts) {
        const message = `the item stopped moving for ${deps.itemTimeoutMs} ms, ${attempts} times`;
        return errorLine(item, [{ message, code: 'FETCH_TIMEOUT' }]);
      }
    } catch (error) {
      // No credits stops the job; a daemon stopping refunded the item, which runs again when the job resumes.
      if (error instanceof NotStarted) throw error;
      if (isPagejsonError(error) && (error.code === 'NO_CREDITS' || error.code === 'SHUTTING_DOWN')) throw error;
      if (origin && deps.politeness && isRateLimited(error) && limited < RATE_LIMITED_TRIES) {
        // A 429 was refunded and is no stall: the item is tried again in the origin's next turn.
        limited += 1;
        tried -= 1;
        continue;
      }
      return errorLine(item, (deps.errorsOf ?? defaultErrorsOf)(error));
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
        if (error instanceof NotStarted) {
          // Cancelled while it waited for its origin: it ends as the cancelled ones do; a shutdown runs it again at resume.
          if (deps.signal?.reason !== 'shutdown') write(skippedLine(item, 'CANCELLED', 'the job was cancelled'));
          return;
        }
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
