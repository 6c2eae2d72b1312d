import { randomBytes } from 'node:crypto';
import { closeRedis, commandSender, connectRedis, RELEASE_LOCK, runScript, type RedisClient } from '../state/index.js';
import type { ResponseCacheOptions } from './response-cache.js';

/**
 * The response cache's durable layer when daemons share Redis (docs/redis.md): keyv over
 * `@keyv/redis`, with plain JSON serialisers (keyv's default parses with a reviver on every read), and a
 * refresh lock so that a stale entry is refreshed by one daemon at a time, not by every daemon that served it.
 *
 * Both use one connection. The keyv instance owns it: `createResponseCache(...).close()` disconnects keyv,
 * which closes the connection; `close()` here is for a cache that was never handed over.
 */
type CacheKeyv = NonNullable<ResponseCacheOptions['keyv']>;
export type RefreshLock = NonNullable<ResponseCacheOptions['refreshLock']>;

export interface RedisCacheOptions {
  url: string;
  /** Prefix of every key (default `pagejson:`): entries live under `<prefix>cache::`, locks under `<prefix>refresh:`. */
  prefix?: string;
  /**
   * How long a refresh lock lives if its holder never releases it (a daemon killed mid-refresh). Longer
   * than a fetch can take (the total fetch deadline is 20 s by default), so a slow refresh is not doubled.
   */
  lockTtlMs?: number;
  onError?: (error: unknown) => void;
}

export interface RedisCache {
  keyv: CacheKeyv;
  refreshLock: RefreshLock;
  close(): Promise<void>;
}

export async function createRedisCache(options: RedisCacheOptions): Promise<RedisCache> {
  const prefix = options.prefix ?? 'pagejson:';
  const lockTtlMs = options.lockTtlMs ?? 60_000;
  const client: RedisClient = await connectRedis({ url: options.url, ...(options.onError ? { onError: options.onError } : {}) });
  try {
    const [{ default: Keyv }, { default: KeyvRedis }] = await Promise.all([import('keyv'), import('@keyv/redis')]);
    // throwOnErrors: a failed read or write reaches the response cache, which reports it and treats it as a miss.
    const adapter = new KeyvRedis(client as never, { namespace: `${prefix}cache`, throwOnErrors: true, throwOnConnectError: true });
    // The adapter prefixes keys with its namespace; keyv must not prefix them a second time.
    const keyv = new Keyv({
      store: adapter,
      namespace: `${prefix}cache`,
      useKeyPrefix: false,
      serialize: JSON.stringify,
      deserialize: JSON.parse,
      throwOnErrors: true,
    }) as CacheKeyv;
    const sender = commandSender(client);

    const refreshLock: RefreshLock = async (key) => {
      const lockKey = `${prefix}refresh:${key}`;
      const token = randomBytes(12).toString('base64url');
      const taken = await sender.sendCommand<string | null>(['SET', lockKey, token, 'NX', 'PX', String(lockTtlMs)]);
      if (taken !== 'OK') return undefined;
      // Only the holder's own token deletes it: a lock that expired and was taken by another daemon stays.
      return async () => {
        await runScript(sender, RELEASE_LOCK, [lockKey], [token]);
      };
    };

    return { keyv, refreshLock, close: () => closeRedis(client) };
  } catch (error) {
    await closeRedis(client);
    throw error;
  }
}
