import { closeRedis, commandSender, connectRedis, runScript, type RedisScript } from '../state/index.js';
import { createHash } from 'node:crypto';
import {
  FINISHED_DELIVERIES_KEPT,
  type Delivery,
  type HealthState,
  type HistoryEntry,
  type MonitorRunState,
  type MonitorStore,
} from './store.js';

/**
 * The Redis MonitorStore, shared by every daemon on one Redis. Layout under the prefix (default `pagejson:`):
 *   mon:lease:<name>      string  the holder's id, or `done` once finished (PX: the lease or how long it is kept)
 *   mon:runs              hash    monitorId → JSON of its last run
 *   mon:health            hash    apiId → last health seen (swapped atomically: one daemon sees each change)
 *   mon:history:<apiId>   list    JSON history entries, newest first (LTRIM to the kept count)
 *   mon:deliveries        hash    delivery id → JSON of the delivery
 *   mon:due               zset    pending delivery id → when it may be attempted (claims push it forward)
 *   mon:finished          list    finished delivery ids, newest first (the ones trimmed off are deleted)
 */
function script(name: string, source: string): RedisScript {
  return { name, source, sha: createHash('sha1').update(source).digest('hex') };
}

/** KEYS[1] lease. ARGV: owner, ttl ms. Taken when free or already this owner's (and not finished). */
const ACQUIRE_LEASE = script(
  'monitor-acquire-lease',
  `local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1`,
);

/** KEYS[1] health hash. ARGV: apiId, state. → the previous state or false. */
const SWAP_HEALTH = script(
  'monitor-swap-health',
  `local previous = redis.call('HGET', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return previous`,
);

/** KEYS[1] due zset. ARGV: now, until, limit. Claims due ids by pushing their time to `until`. */
const CLAIM_DUE = script(
  'monitor-claim-due',
  `local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, id in ipairs(ids) do redis.call('ZADD', KEYS[1], ARGV[2], id) end
return ids`,
);

/** KEYS: deliveries hash, due zset, finished list. ARGV: id, JSON, kept. Records a finished delivery. */
const FINISH_DELIVERY = script(
  'monitor-finish-delivery',
  `redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('LPUSH', KEYS[3], ARGV[1])
local old = redis.call('LRANGE', KEYS[3], tonumber(ARGV[3]), -1)
for _, id in ipairs(old) do redis.call('HDEL', KEYS[1], id) end
redis.call('LTRIM', KEYS[3], 0, tonumber(ARGV[3]) - 1)
return #old`,
);

export interface RedisMonitorStoreOptions {
  url: string;
  prefix?: string;
  onError?: (error: unknown) => void;
}

export async function createRedisMonitorStore(options: RedisMonitorStoreOptions): Promise<MonitorStore> {
  const prefix = `${options.prefix ?? 'pagejson:'}mon:`;
  const client = await connectRedis({ url: options.url, ...(options.onError ? { onError: options.onError } : {}) });
  const redis = commandSender(client);
  const k = {
    lease: (name: string) => `${prefix}lease:${name}`,
    runs: `${prefix}runs`,
    health: `${prefix}health`,
    history: (apiId: string) => `${prefix}history:${apiId}`,
    deliveries: `${prefix}deliveries`,
    due: `${prefix}due`,
    finished: `${prefix}finished`,
  };
  const parse = <T>(text: unknown): T | undefined => (typeof text === 'string' ? (JSON.parse(text) as T) : undefined);

  async function read(id: string): Promise<Delivery | undefined> {
    return parse<Delivery>(await redis.sendCommand(['HGET', k.deliveries, id]));
  }
  async function finish(id: string, patch: Partial<Delivery>): Promise<void> {
    const delivery = await read(id);
    if (!delivery) return;
    await runScript(
      redis,
      FINISH_DELIVERY,
      [k.deliveries, k.due, k.finished],
      [id, JSON.stringify({ ...delivery, ...patch }), String(FINISHED_DELIVERIES_KEPT)],
    );
  }

  return {
    name: 'redis',
    acquireLease: async (name, owner, ttlMs) =>
      (await runScript<number>(redis, ACQUIRE_LEASE, [k.lease(name)], [owner, String(Math.max(1, Math.round(ttlMs)))])) === 1,
    async finishLease(name, _owner, keepMs) {
      await redis.sendCommand(['SET', k.lease(name), 'done', 'PX', String(Math.max(1, Math.round(keepMs)))]);
    },
    getRun: async (monitorId) => parse<MonitorRunState>(await redis.sendCommand(['HGET', k.runs, monitorId])),
    async listRuns() {
      const values = await redis.sendCommand<string[]>(['HVALS', k.runs]);
      return values.map((value) => JSON.parse(value) as MonitorRunState);
    },
    async putRun(state) {
      await redis.sendCommand(['HSET', k.runs, state.monitorId, JSON.stringify(state)]);
    },
    async swapHealth(apiId, state) {
      const previous = await runScript<string | null>(redis, SWAP_HEALTH, [k.health], [apiId, state]);
      return typeof previous === 'string' ? (previous as HealthState) : undefined;
    },
    async addHistory(entry, keep) {
      const key = k.history(entry.apiId);
      await redis.sendCommand(['LPUSH', key, JSON.stringify(entry)]);
      await redis.sendCommand(['LTRIM', key, '0', String(keep - 1)]);
    },
    async history(apiId, limit) {
      const values = await redis.sendCommand<string[]>(['LRANGE', k.history(apiId), '0', String(limit - 1)]);
      return values.map((value) => JSON.parse(value) as HistoryEntry);
    },
    async enqueue(deliveries) {
      if (deliveries.length === 0) return;
      // Record first, then make due: a delivery is never due without its record.
      await redis.sendCommand(['HSET', k.deliveries, ...deliveries.flatMap((delivery) => [delivery.id, JSON.stringify(delivery)])]);
      await redis.sendCommand(['ZADD', k.due, ...deliveries.flatMap((delivery) => [String(delivery.nextAttemptAt), delivery.id])]);
    },
    async claimDue(now, leaseMs, limit) {
      const ids = await runScript<string[]>(redis, CLAIM_DUE, [k.due], [String(now), String(now + leaseMs), String(limit)]);
      if (ids.length === 0) return [];
      const values = await redis.sendCommand<Array<string | null>>(['HMGET', k.deliveries, ...ids]);
      return values
        .map((value) => parse<Delivery>(value))
        .filter((delivery): delivery is Delivery => delivery !== undefined && delivery.status === 'pending');
    },
    delivered: (id, at) =>
      read(id).then((delivery) =>
        finish(id, { status: 'delivered', deliveredAt: at, lastError: null, attempts: (delivery?.attempts ?? 0) + 1 }),
      ),
    async retryLater(id, attempts, nextAttemptAt, error) {
      const delivery = await read(id);
      if (!delivery) return;
      await redis.sendCommand(['HSET', k.deliveries, id, JSON.stringify({ ...delivery, attempts, nextAttemptAt, lastError: error })]);
      await redis.sendCommand(['ZADD', k.due, String(nextAttemptAt), id]);
    },
    giveUp: (id, attempts, error, at) => finish(id, { status: 'failed', attempts, lastError: error, deliveredAt: at }),
    async deliveries(limit) {
      const values = await redis.sendCommand<string[]>(['HVALS', k.deliveries]);
      return values
        .map((value) => JSON.parse(value) as Delivery)
        .sort((a, b) => b.createdAt - a.createdAt)
        .slice(0, limit);
    },
    flush: async () => undefined,
    close: () => closeRedis(client),
  };
}
