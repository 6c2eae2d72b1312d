import { createHash, randomUUID } from 'node:crypto';
import { commandSender, runScript, type RedisClient, type RedisScript } from '../state/index.js';
import type { OriginGate, OriginGateOptions } from './origin-gate.js';

/**
 * The origin gate every daemon and `pagejson worker` on one Redis shares (docs/jobs.md, "Polite by default"):
 * an origin's turns are a sorted set of leases, renewed while held (a process that died gives its turns back
 * when its leases end, `jobs.workerLockMs`)
 * and its next allowed start a key, changed together in one script. Waiters poll; across processes the order
 * of waiters is not kept. Clocks are the processes' own (a skew of a few ms between machines is the price).
 */
export const REDIS_GATE_PREFIX = 'pagejson:jobs:origin:';
/** How often a waiter asks again when every turn is taken. */
const POLL_MS = 25;

const script = (name: string, source: string): RedisScript => ({ name, source, sha: createHash('sha1').update(source).digest('hex') });

/** KEYS: leases zset, next-start key. ARGV: now, lease ms, concurrency, min delay ms, token. → 0 granted, else ms to wait. */
const TAKE_TURN = script(
  'jobs-take-turn',
  `local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local nextAt = tonumber(redis.call('GET', KEYS[2]) or '0')
if nextAt > now then return nextAt - now end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return -1 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[5])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
redis.call('SET', KEYS[2], now + tonumber(ARGV[4]), 'PX', tonumber(ARGV[4]) + 1000)
return 0`,
);

/** KEYS: next-start key. ARGV: until (ms), keep ms. Moves the next start later, never earlier. */
const PAUSE = script(
  'jobs-pause-origin',
  `local nextAt = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > nextAt then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end
return 0`,
);

const hashOf = (origin: string) => createHash('sha256').update(origin).digest('hex').slice(0, 32);

export function createRedisOriginGate(client: RedisClient, options: OriginGateOptions & { leaseMs: number }): OriginGate {
  const now = options.now ?? Date.now;
  const sender = commandSender(client);
  const keysOf = (origin: string) => [`${REDIS_GATE_PREFIX}${hashOf(origin)}:turns`, `${REDIS_GATE_PREFIX}${hashOf(origin)}:next`];
  const sleep = (ms: number, signal?: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(done, ms);
      function done() {
        signal?.removeEventListener('abort', aborted);
        resolve();
      }
      function aborted() {
        clearTimeout(timer);
        reject(signal!.reason as Error);
      }
      signal?.addEventListener('abort', aborted, { once: true });
    });

  return {
    async acquire(origin, signal) {
      const keys = keysOf(origin);
      const token = randomUUID();
      for (;;) {
        signal?.throwIfAborted();
        const args = [String(now()), String(options.leaseMs), String(options.concurrency), String(options.minDelayMs), token];
        const wait = Number(await runScript<number>(sender, TAKE_TURN, keys, args));
        if (wait === 0) {
          // The lease is renewed while the turn is held: only a process that died loses its turns, after leaseMs.
          const renew = setInterval(
            () =>
              void client.zAdd(keys[0]!, { score: now() + options.leaseMs, value: token }, { XX: true } as never).catch(() => undefined),
            Math.max(100, Math.floor(options.leaseMs / 3)),
          );
          renew.unref();
          let released = false;
          return () => {
            if (released) return;
            released = true;
            clearInterval(renew);
            void client.zRem(keys[0]!, token).catch(() => undefined);
          };
        }
        await sleep(wait > 0 ? Math.min(wait, 1_000) : POLL_MS, signal);
      }
    },
    async pause(origin, ms) {
      const [, next] = keysOf(origin);
      await runScript(sender, PAUSE, [next!], [String(now() + ms), String(ms + 1000)]);
    },
    async close() {
      // The client is the caller's.
    },
  };
}
