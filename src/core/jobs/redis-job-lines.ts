import { createHash } from 'node:crypto';
import { commandSender, runScript, type RedisClient, type RedisScript } from '../state/index.js';
import type { ResultTexts } from './results-format.js';
import { emptyCounts, type JobCounts, type JobRecord, type JobState, type ResultLine } from './types.js';

/**
 * A job's record and lines in Redis, for the BullMQ driver (redis-job-service.ts): any daemon behind the load
 * balancer reads them, any worker writes them. A line is added once per input (a set of the inputs that have
 * one, in the same script), so an item a dead worker's lock gave to another never ends twice; the counts move
 * in that script too. State changes are scripts: a job stopped (cancelled, out of credits) stays stopped.
 */
export const JOBS_PREFIX = 'pagejson:jobs:';
const INDEX_KEY = `${JOBS_PREFIX}index`;
/** The newest jobs `list` reads. */
const LIST_MAX = 1_000;

const script = (name: string, source: string): RedisScript => ({ name, source, sha: createHash('sha1').update(source).digest('hex') });

/** KEYS: ended set, lines list, counts hash. ARGV: index, line, outcome field, milli-credits. → {added, done, failed, skipped} */
const APPEND_LINE = script(
  'jobs-append-line',
  `local added = redis.call('SADD', KEYS[1], ARGV[1])
if added == 1 then
  redis.call('RPUSH', KEYS[2], ARGV[2])
  redis.call('HINCRBY', KEYS[3], ARGV[3], 1)
  redis.call('HINCRBY', KEYS[3], 'credits', ARGV[4])
end
local c = redis.call('HMGET', KEYS[3], 'done', 'failed', 'skipped')
return {added, tonumber(c[1] or '0'), tonumber(c[2] or '0'), tonumber(c[3] or '0')}`,
);

/** KEYS: record hash. ARGV: from states (comma list), to state, field, value. → 1 when moved. */
const MOVE_STATE = script(
  'jobs-move-state',
  `local state = redis.call('HGET', KEYS[1], 'state')
if not state then return 0 end
for allowed in string.gmatch(ARGV[1], '[^,]+') do
  if allowed == state then
    redis.call('HSET', KEYS[1], 'state', ARGV[2], ARGV[3], ARGV[4])
    return 1
  end
end
return 0`,
);

export interface RedisJobLines {
  create(record: JobRecord): Promise<void>;
  get(id: string): Promise<JobRecord | undefined>;
  list(): Promise<JobRecord[]>;
  /** Moves the job from one of `from` to `to`, setting `field`; false when it was elsewhere. */
  move(id: string, from: JobState[], to: JobState, field: 'startedAt' | 'reason' | 'finishedAt', value: string): Promise<boolean>;
  /** Marks the end once (the first to see the counts add up); false for every later caller. */
  finish(id: string, at: string): Promise<boolean>;
  /** Adds the input's line unless it has one: whether it was added, and the counts after. */
  append(id: string, line: ResultLine): Promise<{ added: boolean; ended: number }>;
  texts(id: string): ResultTexts;
}

const keysOf = (id: string) => ({
  record: `${JOBS_PREFIX}${id}`,
  ended: `${JOBS_PREFIX}${id}:ended`,
  lines: `${JOBS_PREFIX}${id}:lines`,
  counts: `${JOBS_PREFIX}${id}:counts`,
});

function recordOf(fields: Record<string, string>, counts: Record<string, string>): JobRecord | undefined {
  if (!fields.static || !fields.state) return undefined;
  const base = JSON.parse(fields.static) as Omit<JobRecord, 'state' | 'counts'>;
  const tally: JobCounts = emptyCounts(Number(fields.total ?? 0));
  tally.done = Number(counts.done ?? 0);
  tally.failed = Number(counts.failed ?? 0);
  tally.skipped = Number(counts.skipped ?? 0);
  tally.credits = Number(counts.credits ?? 0);
  return {
    ...base,
    state: fields.state as JobState,
    counts: tally,
    ...(fields.startedAt ? { startedAt: fields.startedAt } : {}),
    ...(fields.finishedAt ? { finishedAt: fields.finishedAt } : {}),
    ...(fields.reason ? { reason: fields.reason } : {}),
  };
}

export function createRedisJobLines(client: RedisClient): RedisJobLines {
  const sender = commandSender(client);
  const get = async (id: string) => {
    const keys = keysOf(id);
    const [fields, counts] = await Promise.all([client.hGetAll(keys.record), client.hGetAll(keys.counts)]);
    return recordOf(fields as Record<string, string>, counts as Record<string, string>);
  };
  return {
    async create(record) {
      const { state, counts, startedAt: _s, finishedAt: _f, reason: _r, heartbeatAt: _h, ...rest } = record;
      await client.hSet(keysOf(record.id).record, { static: JSON.stringify(rest), state, total: String(counts.total) });
      await client.zAdd(INDEX_KEY, { score: Date.parse(record.createdAt), value: record.id });
    },
    get,
    async list() {
      const ids = await client.zRange(INDEX_KEY, 0, LIST_MAX - 1, { REV: true } as never);
      return (await Promise.all(ids.map(get))).filter((record): record is JobRecord => record !== undefined);
    },
    async move(id, from, to, field, value) {
      const moved = await runScript<number>(sender, MOVE_STATE, [keysOf(id).record], [from.join(','), to, field, value]);
      return Number(moved) === 1;
    },
    async finish(id, at) {
      const record = keysOf(id).record;
      if (!(await client.hSetNX(record, 'finishedAt', at))) return false;
      await runScript(sender, MOVE_STATE, [record], ['queued,running', 'done', 'finishedAt', at]);
      return true;
    },
    async append(id, line) {
      const keys = keysOf(id);
      const milli = String(Math.round((line.credits ?? 0) * 1000));
      const field = line.outcome === 'data' ? 'done' : line.outcome === 'error' ? 'failed' : 'skipped';
      const [added, done, failed, skipped] = await runScript<number[]>(
        sender,
        APPEND_LINE,
        [keys.ended, keys.lines, keys.counts],
        [String(line.index), JSON.stringify(line), field, milli],
      );
      return { added: Number(added) === 1, ended: Number(done) + Number(failed) + Number(skipped) };
    },
    texts(id) {
      const key = keysOf(id).lines;
      return async function* () {
        // In pages: a 100,000-line job is never held whole.
        for (let start = 0; ; start += 500) {
          const page = await client.lRange(key, start, start + 499);
          yield* page;
          if (page.length < 500) return;
        }
      };
    },
  };
}
