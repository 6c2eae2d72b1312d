import { PagejsonError } from '../shared/index.js';
import { closeRedis, commandSender, connectRedis, describeRedisUrl, type RedisClient } from './redis-connection.js';
import { randomBytes } from 'node:crypto';
import {
  ADD_KEY,
  ADD_TO_BALANCE,
  ENSURE_ACCOUNT,
  HOLD,
  RELEASE_HOLD,
  RESERVE,
  SETTLE_HOLD,
  UPDATE_KEY,
  runScript,
} from './redis-scripts.js';
import {
  assertAmount,
  cloneKey,
  dayOf,
  eventCount,
  eventTokens,
  groupUsage,
  hourOf,
  HOURLY_USAGE_RETENTION_HOURS,
  oldestHourKeeper,
  usageQueryCutoff,
} from './state-rules.js';
import type { Account, ApiKeyRecord, EndpointRuntimeStatus, ReserveResult, StateStore, UsageEvent, UsageQuery, UsageRow } from './types.js';

/**
 * The Redis StateStore (docs/redis.md): any number of daemons and CLI commands share it, so there is
 * no single-writer rule. Every read-check-write is one Lua script (redis-scripts.ts); everything else is a
 * single command or a MULTI. Redis is the durable store here: a change is "issued" when Redis has answered.
 *
 * Layout under the prefix (default `pagejson:`):
 *   account:<id>   hash   balance (integer milli-credits), createdAt
 *   key:<id>       hash   one JSON-encoded value per ApiKeyRecord field (patches write only their fields)
 *   keys           set    every key id
 *   keys:digest    hash   SHA-256 digest → key id (the lookup on every request)
 *   usage:<day>    hash   `<apiId>\t<keyId>\t<counter>` → count (HINCRBY; expires after the retention); counters:
 *                         requests, errors, cacheHits, milliCredits, promptTokens, completionTokens (absent = 0)
 *   usage:days     set    days that have a usage hash
 *   usage:hour:<h> hash   the same per UTC hour `YYYY-MM-DDTHH:00Z` (expires after HOURLY_USAGE_RETENTION_HOURS)
 *   usage:hours    set    hours that have a usage hash
 *   endpoints      hash   apiId → JSON of the endpoint's runtime status
 *   holds          hash   `<owner>:<hold id>` → `<account>\t<milli-credits>`: reservations of requests in flight
 *   owner:<owner>  string heartbeat of a live store (PX OWNER_TTL_MS, renewed every third of it); a hold whose
 *                         owner has no heartbeat was left by a dead daemon and is refunded by the next sweep
 */
export const OWNER_TTL_MS = 30_000;
export interface RedisStoreOptions {
  url: string;
  /** Prefix of every key, so several installations can share one Redis (default `pagejson:`). */
  prefix?: string;
  now?: () => Date;
  /** Usage days are kept this long (default 400, as the embedded store). */
  usageRetentionDays?: number;
  /** Connection errors after start (the client reconnects by itself). */
  onError?: (error: unknown) => void;
}

const KEY_FIELDS = ['id', 'digest', 'account', 'label', 'scope', 'status', 'createdAt', 'lastUsedAt', 'expiresAt'] as const;
const COUNTERS = ['requests', 'errors', 'cacheHits', 'milliCredits', 'promptTokens', 'completionTokens'] as const;

function pairsToObject(pairs: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!Array.isArray(pairs)) return out;
  for (let i = 0; i + 1 < pairs.length; i += 2) out[String(pairs[i])] = String(pairs[i + 1]);
  return out;
}

function encodeKeyFields(record: Partial<ApiKeyRecord>): string[] {
  const args: string[] = [];
  for (const field of KEY_FIELDS) {
    const value = record[field];
    if (value !== undefined) args.push(field, JSON.stringify(value));
  }
  return args;
}

function decodeKey(fields: Record<string, string>): ApiKeyRecord | undefined {
  if (fields.id === undefined) return undefined;
  const record: Record<string, unknown> = {};
  for (const field of KEY_FIELDS) record[field] = fields[field] === undefined ? null : JSON.parse(fields[field]);
  return cloneKey(record as unknown as ApiKeyRecord);
}

export function accountNotFound(account: string): PagejsonError {
  return new PagejsonError('ACCOUNT_NOT_FOUND', `no account "${account}"`, {
    context: { account },
    hint: 'accounts are created on first use',
  });
}

/** The keys of the layout above under one prefix. */
function redisKeys(prefix: string) {
  return {
    account: (id: string) => `${prefix}account:${id}`,
    key: (id: string) => `${prefix}key:${id}`,
    keys: `${prefix}keys`,
    digests: `${prefix}keys:digest`,
    usage: (day: string) => `${prefix}usage:${day}`,
    usageDays: `${prefix}usage:days`,
    usageHour: (hour: string) => `${prefix}usage:hour:${hour}`,
    usageHours: `${prefix}usage:hours`,
    endpoints: `${prefix}endpoints`,
    holds: `${prefix}holds`,
    owner: (id: string) => `${prefix}owner:${id}`,
    accountPrefix: `${prefix}account:`,
  };
}

/** This store's heartbeat: while it lives, the holds of this store are not taken for a dead daemon's. */
async function startHeartbeat(client: RedisClient, key: string): Promise<NodeJS.Timeout> {
  const beat = (): Promise<unknown> => client.set(key, String(process.pid), { PX: OWNER_TTL_MS });
  await beat();
  const heartbeat = setInterval(() => void beat().catch(() => undefined), OWNER_TTL_MS / 3);
  heartbeat.unref();
  return heartbeat;
}

interface UsageContext {
  client: RedisClient;
  k: ReturnType<typeof redisKeys>;
  now: () => Date;
  retentionSeconds: number;
  oldestHourKept: () => string;
  guard: () => void;
}

/** The store's usage counters: daily (and recent hourly) hashes of counts per endpoint and key. */
function usageMethods({
  client,
  k,
  now,
  retentionSeconds,
  oldestHourKept,
  guard,
}: UsageContext): Pick<StateStore, 'recordUsage' | 'usage'> {
  return {
    recordUsage(event: UsageEvent): Promise<void> {
      try {
        guard();
      } catch (error) {
        return Promise.reject(error);
      }
      const day = dayOf(event.at);
      const hour = hourOf(event.at);
      const multi = client.multi();
      // An event older than the hourly retention (a clock step, a test) counts by the day only.
      const keepHour = hour >= oldestHourKept();
      const buckets: Array<readonly [string, number]> = [[k.usage(day), retentionSeconds]];
      if (keepHour) buckets.push([k.usageHour(hour), HOURLY_USAGE_RETENTION_HOURS * 3_600]);
      for (const [hash, seconds] of buckets) {
        const row = `${event.apiId}\t${event.keyId ?? ''}\t`;
        const count = eventCount(event);
        if (event.outcome !== 'MODEL') multi.hIncrBy(hash, `${row}requests`, count);
        if (event.outcome === 'ERROR') multi.hIncrBy(hash, `${row}errors`, count);
        if (event.outcome === 'HIT' || event.outcome === 'STALE') multi.hIncrBy(hash, `${row}cacheHits`, count);
        if (event.milliCredits !== 0) multi.hIncrBy(hash, `${row}milliCredits`, event.milliCredits);
        // Token fields exist only once a model spent tokens; rows without them read as 0.
        const tokens = eventTokens(event);
        if (tokens.promptTokens !== 0) multi.hIncrBy(hash, `${row}promptTokens`, tokens.promptTokens);
        if (tokens.completionTokens !== 0) multi.hIncrBy(hash, `${row}completionTokens`, tokens.completionTokens);
        multi.expire(hash, seconds);
      }
      multi.sAdd(k.usageDays, day);
      if (keepHour) multi.sAdd(k.usageHours, hour);
      return multi.exec().then(() => undefined);
    },

    async usage(query: UsageQuery): Promise<UsageRow[]> {
      guard();
      const hourly = query.unit === 'hour';
      const cutoff = usageQueryCutoff(query, now());
      const bucketSet = hourly ? k.usageHours : k.usageDays;
      const buckets = (await client.sMembers(bucketSet)).filter((bucket) => cutoff === undefined || bucket >= cutoff);
      const hashes = await Promise.all(buckets.map((bucket) => client.hGetAll(hourly ? k.usageHour(bucket) : k.usage(bucket))));
      const rows = new Map<string, UsageRow>();
      const expired: string[] = [];
      buckets.forEach((bucket, index) => {
        const fields = hashes[index] ?? {};
        if (Object.keys(fields).length === 0) expired.push(bucket);
        for (const [field, count] of Object.entries(fields)) {
          const [apiId = '', keyId = '', counter] = field.split('\t');
          if (!COUNTERS.includes(counter as (typeof COUNTERS)[number])) continue;
          if (query.apiId !== undefined && apiId !== query.apiId) continue;
          const key = keyId === '' ? null : keyId;
          if (query.keyId !== undefined && key !== query.keyId) continue;
          const id = `${bucket}\t${apiId}\t${keyId}`;
          let found = rows.get(id);
          if (!found) {
            found = {
              day: bucket.slice(0, 10),
              ...(hourly ? { hour: bucket } : {}),
              apiId,
              keyId: key,
              requests: 0,
              errors: 0,
              cacheHits: 0,
              milliCredits: 0,
              promptTokens: 0,
              completionTokens: 0,
            };
            rows.set(id, found);
          }
          found[counter as (typeof COUNTERS)[number]] = Number(count);
        }
      });
      // A bucket whose hash expired leaves its name in the set: tidy it so the set stays small.
      if (expired.length > 0) await client.sRem(bucketSet, expired).catch(() => undefined);
      return groupUsage([...rows.values()]);
    },
  };
}

/** The store's runtime status of each endpoint, one JSON entry per apiId. */
function endpointStatusMethods(
  client: RedisClient,
  k: ReturnType<typeof redisKeys>,
  guard: () => void,
): Pick<StateStore, 'setEndpointStatus' | 'listEndpointStatus'> {
  return {
    async setEndpointStatus(status: EndpointRuntimeStatus): Promise<void> {
      guard();
      await client.hSet(k.endpoints, status.apiId, JSON.stringify(status));
    },

    async listEndpointStatus(): Promise<EndpointRuntimeStatus[]> {
      guard();
      const all = await client.hGetAll(k.endpoints);
      return Object.values(all)
        .map((json) => JSON.parse(json) as EndpointRuntimeStatus)
        .sort((a, b) => a.apiId.localeCompare(b.apiId));
    },
  };
}

export async function createRedisStore(
  options: RedisStoreOptions,
): Promise<StateStore & { readonly url: string; readonly prefix: string }> {
  const prefix = options.prefix ?? 'pagejson:';
  const now = options.now ?? (() => new Date());
  const retentionSeconds = (options.usageRetentionDays ?? 400) * 86_400;
  const client: RedisClient = await connectRedis({ url: options.url, ...(options.onError ? { onError: options.onError } : {}) });
  const sender = commandSender(client);
  const k = redisKeys(prefix);
  let closed = false;
  const oldestHourKept = oldestHourKeeper(now);
  const owner = randomBytes(8).toString('hex');
  const heartbeat = await startHeartbeat(client, k.owner(owner));

  function guard(): void {
    if (closed) throw new PagejsonError('INTERNAL', 'the state store is closed', { hint: 'this is a bug in pagejson; please report it' });
  }

  /** Sync checks, then the script issued before any await (the StateStore ordering rule). */
  function addToBalance(account: string, milliCredits: number): Promise<number> {
    try {
      assertAmount(milliCredits);
      guard();
    } catch (error) {
      return Promise.reject(error);
    }
    return runScript<number | null>(sender, ADD_TO_BALANCE, [k.account(account)], [String(milliCredits)]).then((balance) => {
      if (balance === null || balance === undefined) throw accountNotFound(account);
      return Number(balance);
    });
  }

  async function getKey(id: string): Promise<ApiKeyRecord | undefined> {
    guard();
    return decodeKey(await client.hGetAll(k.key(id)));
  }

  return {
    name: 'redis',
    url: describeRedisUrl(options.url),
    prefix,

    async ensureAccount(account, initialMilliCredits): Promise<Account> {
      assertAmount(initialMilliCredits);
      guard();
      const [balance, createdAt] = await runScript<[string, string]>(
        sender,
        ENSURE_ACCOUNT,
        [k.account(account)],
        [String(initialMilliCredits), now().toISOString()],
      );
      return { id: account, balance: Number(balance), createdAt };
    },

    async getAccount(account): Promise<Account | undefined> {
      guard();
      const fields = await client.hGetAll(k.account(account));
      if (fields.balance === undefined) return undefined;
      return { id: account, balance: Number(fields.balance), createdAt: fields.createdAt ?? '' };
    },

    reserve(account, milliCredits): Promise<ReserveResult> {
      try {
        assertAmount(milliCredits);
        guard();
      } catch (error) {
        return Promise.reject(error);
      }
      return runScript<[number, number]>(sender, RESERVE, [k.account(account)], [String(milliCredits)]).then(([status, balance]) => {
        if (Number(status) === -1) throw accountNotFound(account);
        return { ok: Number(status) === 1, balance: Number(balance) };
      });
    },

    refund: addToBalance,
    grant: addToBalance,

    hold(account, milliCredits, holdId): Promise<ReserveResult> {
      try {
        assertAmount(milliCredits);
        guard();
      } catch (error) {
        return Promise.reject(error);
      }
      return runScript<[number, number]>(
        sender,
        HOLD,
        [k.account(account), k.holds],
        [String(milliCredits), `${owner}:${holdId}`, `${account}\t${milliCredits}`],
      ).then(([status, balance]) => {
        if (Number(status) === -1) throw accountNotFound(account);
        return { ok: Number(status) === 1, balance: Number(balance) };
      });
    },

    async settle(holdId, milliCredits): Promise<number | undefined> {
      guard();
      if (milliCredits === undefined) {
        await client.hDel(k.holds, `${owner}:${holdId}`);
        return undefined;
      }
      const balance = await runScript<number | null>(
        sender,
        SETTLE_HOLD,
        [k.holds],
        [`${owner}:${holdId}`, k.accountPrefix, String(Math.max(0, Math.round(milliCredits)))],
      );
      return balance === null || balance === undefined ? undefined : Number(balance);
    },

    async release(holdId): Promise<number | undefined> {
      guard();
      const balance = await runScript<number | null>(sender, RELEASE_HOLD, [k.holds], [`${owner}:${holdId}`, k.accountPrefix]);
      return balance === null || balance === undefined ? undefined : Number(balance);
    },

    async releaseOrphanedHolds(): Promise<{ holds: number; milliCredits: number }> {
      guard();
      const all = await client.hGetAll(k.holds);
      const owners = new Map<string, boolean>();
      const released = { holds: 0, milliCredits: 0 };
      for (const [field, record] of Object.entries(all)) {
        const holder = field.split(':')[0] ?? '';
        if (holder === owner) continue;
        if (!owners.has(holder)) owners.set(holder, (await client.exists(k.owner(holder))) === 1);
        if (owners.get(holder)) continue;
        const balance = await runScript<number | null>(sender, RELEASE_HOLD, [k.holds], [field, k.accountPrefix]);
        if (balance === null || balance === undefined) continue;
        released.holds += 1;
        released.milliCredits += Number(record.split('\t')[1] ?? 0);
      }
      return released;
    },

    async addKey(record): Promise<void> {
      guard();
      const outcome = await runScript<string>(
        sender,
        ADD_KEY,
        [k.key(record.id), k.digests, k.keys],
        [record.id, record.digest, ...encodeKeyFields(record)],
      );
      if (outcome === 'id') throw new PagejsonError('INTERNAL', `key id ${record.id} already exists`);
      if (outcome === 'digest') throw new PagejsonError('INTERNAL', 'a key with this digest already exists');
    },

    async findKeyByDigest(digest): Promise<ApiKeyRecord | undefined> {
      guard();
      const id = await client.hGet(k.digests, digest);
      return id == null ? undefined : getKey(id);
    },

    getKey,

    async listKeys(): Promise<ApiKeyRecord[]> {
      guard();
      const ids = await client.sMembers(k.keys);
      const records = await Promise.all(ids.map((id) => client.hGetAll(k.key(id))));
      return records
        .map(decodeKey)
        .filter((record): record is ApiKeyRecord => record !== undefined)
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    },

    async updateKey(id, patch): Promise<ApiKeyRecord | undefined> {
      guard();
      const { id: _id, digest: _digest, ...allowed } = patch as Partial<ApiKeyRecord>;
      const pairs = await runScript<unknown[] | null>(sender, UPDATE_KEY, [k.key(id)], encodeKeyFields(allowed));
      return pairs ? decodeKey(pairsToObject(pairs)) : undefined;
    },

    ...usageMethods({ client, k, now, retentionSeconds, oldestHourKept, guard }),

    ...endpointStatusMethods(client, k, guard),

    async flush(): Promise<void> {
      // Replies come back in order on one connection: once PING answers, every earlier command has been applied.
      if (closed || !client.isReady) return;
      await client.ping();
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      clearInterval(heartbeat);
      // A clean stop has no holds left; its heartbeat goes so that nothing waits for it to expire.
      await client.del(k.owner(owner)).catch(() => undefined);
      await closeRedis(client);
    },
  };
}
