import { randomBytes } from 'node:crypto';
import { PagejsonError } from '../../shared/index.js';
import { closeRedis, commandSender, connectRedis, RELEASE_LOCK, runScript, type RedisClient } from '../../state/index.js';
import { checkedName, localLocks, MAX_SESSION_BYTES, parseStored, type SessionStore } from './session-stores.js';

/**
 * Login sessions in Redis (docs/access.md, "Logins"; docs/redis.md): `pagejson:login:<apiId>`, shared by every
 * daemon pointed at the same Redis, so the second daemon reuses the session the first one made; the login lock
 * `pagejson:login-lock:<apiId>` (a token, expiring on its own if its holder dies) keeps it to one login at a
 * time across them.
 */

/** A Redis session is forgotten after this long unused; the site usually ends it sooner. */
const REDIS_SESSION_TTL_MS = 30 * 24 * 3_600_000;
/** A lock whose holder died is free again after this (a login is bounded by the fetch deadline, far below). */
const REDIS_LOCK_TTL_MS = 60_000;
const LOCK_POLL_MS = 100;

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

export function createRedisSessionStore(options: { url: string; prefix?: string }): SessionStore {
  const prefix = options.prefix ?? 'pagejson:';
  const local = localLocks();
  let client: Promise<RedisClient> | undefined;
  // The client loads and connects with the first endpoint that has a login, not at start.
  const connected = (): Promise<RedisClient> =>
    (client ??= connectRedis({ url: options.url }).catch((error: unknown) => {
      client = undefined;
      throw error;
    }));
  const sessionKey = (endpoint: string) => `${prefix}login:${checkedName(endpoint)}`;

  async function acquire(endpoint: string, signal: AbortSignal | undefined): Promise<() => Promise<void>> {
    const redis = await connected();
    const key = `${prefix}login-lock:${checkedName(endpoint)}`;
    const token = randomBytes(12).toString('hex');
    for (;;) {
      const taken = await redis.sendCommand<string | null>(['SET', key, token, 'NX', 'PX', String(REDIS_LOCK_TTL_MS)]);
      if (taken === 'OK')
        return async () => void (await runScript(commandSender(redis), RELEASE_LOCK, [key], [token]).catch(() => undefined));
      if (signal?.aborted)
        throw new PagejsonError('FETCH_TIMEOUT', "timed out waiting for another daemon's login of this endpoint", {
          context: { endpoint },
        });
      await pause(LOCK_POLL_MS, signal);
    }
  }

  return {
    kind: 'redis',
    async read(endpoint) {
      const text = await (await connected()).sendCommand<string | null>(['GET', sessionKey(endpoint)]);
      return typeof text === 'string' && text.length <= MAX_SESSION_BYTES ? parseStored(text, endpoint) : undefined;
    },
    async write(session) {
      await (
        await connected()
      ).sendCommand(['SET', sessionKey(session.endpoint), JSON.stringify(session), 'PX', String(REDIS_SESSION_TTL_MS)]);
    },
    // This process's callers queue locally first, so only one of them waits on the Redis lock.
    exclusive: (endpoint, work, signal) =>
      local(endpoint, async () => {
        const release = await acquire(endpoint, signal);
        try {
          return await work();
        } finally {
          await release();
        }
      }),
    async close() {
      const open = client;
      client = undefined;
      const redis = await open?.catch(() => undefined);
      if (redis) await closeRedis(redis);
    },
  };
}
