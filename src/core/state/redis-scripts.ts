import { createHash } from 'node:crypto';

/**
 * The Lua scripts of the Redis driver. Redis runs a script atomically, so a balance check and its change
 * (or an existence check and its write) can never interleave with another daemon's: that is what keeps
 * "never below zero" true when any number of daemons share one Redis. Amounts arrive as integer strings
 * and HINCRBY keeps them integers (64-bit), never floats.
 *
 * Scripts are called by SHA (EVALSHA), loaded at connect, and sent in full once when the server answers
 * NOSCRIPT (it restarted or its script cache was flushed).
 */
export interface RedisScript {
  name: string;
  source: string;
  sha: string;
}

function script(name: string, source: string): RedisScript {
  return { name, source, sha: createHash('sha1').update(source).digest('hex') };
}

/** KEYS[1] account hash. ARGV: initial milli-credits, createdAt. Creates once, never resets. → {balance, createdAt} */
export const ENSURE_ACCOUNT = script(
  'ensure-account',
  `if redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('HSET', KEYS[1], 'balance', ARGV[1], 'createdAt', ARGV[2])
end
return redis.call('HMGET', KEYS[1], 'balance', 'createdAt')`,
);

/** KEYS[1] account hash. ARGV: cost. → {1, balance after} | {0, unchanged balance} | {-1, 0} when no account. */
export const RESERVE = script(
  'reserve',
  `local balance = redis.call('HGET', KEYS[1], 'balance')
if not balance then return {-1, 0} end
balance = tonumber(balance)
local cost = tonumber(ARGV[1])
if balance < cost then return {0, balance} end
return {1, redis.call('HINCRBY', KEYS[1], 'balance', -cost)}`,
);

/**
 * KEYS[1] account hash, KEYS[2] holds hash. ARGV: cost, hold id, hold record. Like RESERVE, and on success
 * the hold is recorded in the same step. → {1, balance after} | {0, balance} | {-1, 0}
 */
export const HOLD = script(
  'hold',
  `local balance = redis.call('HGET', KEYS[1], 'balance')
if not balance then return {-1, 0} end
balance = tonumber(balance)
local cost = tonumber(ARGV[1])
if balance < cost then return {0, balance} end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
return {1, redis.call('HINCRBY', KEYS[1], 'balance', -cost)}`,
);

/**
 * KEYS[1] holds hash. ARGV: hold id, account key prefix. Removes the hold and refunds its amount in one step,
 * so two daemons sweeping the same orphan refund it once. → balance after | false when no such hold.
 */
export const RELEASE_HOLD = script(
  'release-hold',
  `local record = redis.call('HGET', KEYS[1], ARGV[1])
if not record then return false end
redis.call('HDEL', KEYS[1], ARGV[1])
local account, amount = string.match(record, '^([^\t]*)\t(%d+)')
local key = ARGV[2] .. account
if redis.call('HEXISTS', key, 'balance') == 0 then return false end
return redis.call('HINCRBY', key, 'balance', amount)`,
);

/**
 * KEYS[1] holds hash. ARGV: hold id, account key prefix, milli-credits kept. Removes the hold and refunds what
 * it held beyond the amount kept, in one step (a paginated answer that held fewer pages than it could).
 * → balance after a refund | false when nothing was refunded or no such hold.
 */
export const SETTLE_HOLD = script(
  'settle-hold',
  `local record = redis.call('HGET', KEYS[1], ARGV[1])
if not record then return false end
redis.call('HDEL', KEYS[1], ARGV[1])
local account, amount = string.match(record, '^([^\t]*)\t(%d+)')
local back = tonumber(amount) - tonumber(ARGV[3])
if back <= 0 then return false end
local key = ARGV[2] .. account
if redis.call('HEXISTS', key, 'balance') == 0 then return false end
return redis.call('HINCRBY', key, 'balance', back)`,
);

/** KEYS[1] account hash. ARGV: amount. → balance after | nil when no account (refund and grant). */
export const ADD_TO_BALANCE = script(
  'add-to-balance',
  `if redis.call('HEXISTS', KEYS[1], 'balance') == 0 then return false end
return redis.call('HINCRBY', KEYS[1], 'balance', ARGV[1])`,
);

/**
 * KEYS: key hash, digest index hash, id set. ARGV: id, digest, then field/value pairs of the record.
 * → 'ok' | 'id' (id taken) | 'digest' (digest taken): the record and both indexes are written together or not at all.
 */
export const ADD_KEY = script(
  'add-key',
  `if redis.call('EXISTS', KEYS[1]) == 1 then return 'id' end
if redis.call('HEXISTS', KEYS[2], ARGV[2]) == 1 then return 'digest' end
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
redis.call('HSET', KEYS[2], ARGV[2], ARGV[1])
redis.call('SADD', KEYS[3], ARGV[1])
return 'ok'`,
);

/**
 * KEYS[1] key hash. ARGV: field/value pairs to change. → the whole record (HGETALL pairs) | nil when no such key.
 * Only the patched fields are written, so a daemon stamping lastUsedAt can never undo another's revoke.
 */
export const UPDATE_KEY = script(
  'update-key',
  `if redis.call('EXISTS', KEYS[1]) == 0 then return false end
if #ARGV > 0 then redis.call('HSET', KEYS[1], unpack(ARGV)) end
return redis.call('HGETALL', KEYS[1])`,
);

/** KEYS[1] lock key. ARGV: the owner's token. Deletes the lock only if this owner still holds it. */
export const RELEASE_LOCK = script(
  'release-lock',
  `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`,
);

export const ALL_SCRIPTS: readonly RedisScript[] = [
  ENSURE_ACCOUNT,
  RESERVE,
  HOLD,
  RELEASE_HOLD,
  SETTLE_HOLD,
  ADD_TO_BALANCE,
  ADD_KEY,
  UPDATE_KEY,
  RELEASE_LOCK,
];

/** The one command the scripts need from a client: `sendCommand` of node-redis. */
export interface CommandSender {
  sendCommand<T = unknown>(args: ReadonlyArray<string>): Promise<T>;
}

/**
 * Runs a script by SHA. The EVALSHA is issued synchronously, before this function's first await, so callers
 * keep the StateStore rule "the change is applied before the first await" in the order they called.
 */
export function runScript<T>(client: CommandSender, which: RedisScript, keys: readonly string[], args: readonly string[]): Promise<T> {
  const tail = [String(keys.length), ...keys, ...args];
  return client.sendCommand<T>(['EVALSHA', which.sha, ...tail]).catch((error: unknown) => {
    if (!String((error as Error)?.message).startsWith('NOSCRIPT')) throw error;
    return client.sendCommand<T>(['EVAL', which.source, ...tail]);
  });
}

/** SCRIPT LOAD every script, so the hot path sends only SHAs. */
export async function loadScripts(client: CommandSender): Promise<void> {
  await Promise.all(ALL_SCRIPTS.map((which) => client.sendCommand(['SCRIPT', 'LOAD', which.source])));
}
