import type { RedisClientType } from '@redis/client';
import { PagejsonError } from '../shared/index.js';
import { loadScripts, type CommandSender } from './redis-scripts.js';

/**
 * One connection to Redis for the state store or the cache. The client, `@redis/client` (the core of the
 * `redis` package, without its modules), is imported here, lazily: only a process that was given a Redis URL
 * pays for loading it.
 *
 * - The offline queue is off: while the connection is down a command fails at once (the daemon answers an
 *   error envelope) instead of waiting, unbounded, for Redis to come back.
 * - A first connection that fails is an error naming the URL (its password hidden); once connected, a lost
 *   connection is retried with a capped backoff.
 */
export type RedisClient = RedisClientType;

export interface RedisConnectionOptions {
  url: string;
  /** Connection errors after start (the client reconnects by itself); default: ignored. */
  onError?: (error: unknown) => void;
  connectTimeoutMs?: number;
}

/** The URL as it may appear in logs and messages: no user name or password. */
export function describeRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString().replace(/\/$/, '');
  } catch {
    return 'an unparsable Redis URL';
  }
}

export async function connectRedis(options: RedisConnectionOptions): Promise<RedisClient> {
  const shown = describeRedisUrl(options.url);
  if (!/^rediss?:\/\//.test(options.url)) {
    throw new PagejsonError('REDIS_UNAVAILABLE', `the Redis URL must start with redis:// or rediss://, got ${shown}`, {
      hint: 'set PAGEJSON_REDIS_URL or --redis to e.g. redis://127.0.0.1:6379',
    });
  }
  const { createClient } = await import('@redis/client');
  let connectedOnce = false;
  const client = createClient({
    url: options.url,
    disableOfflineQueue: true,
    socket: {
      connectTimeout: options.connectTimeoutMs ?? 5_000,
      reconnectStrategy: (retries: number, cause: Error) => (connectedOnce ? Math.min(50 * 2 ** retries, 2_000) : cause),
    },
  }) as unknown as RedisClient;
  client.on('error', (error: unknown) => {
    if (connectedOnce) options.onError?.(error);
  });
  try {
    await client.connect();
    connectedOnce = true;
    await loadScripts(commandSender(client));
  } catch (error) {
    // A failed first connect has usually closed the client already.
    if (client.isOpen) client.destroy();
    throw new PagejsonError('REDIS_UNAVAILABLE', `could not connect to Redis at ${shown}: ${(error as Error).message || String(error)}`, {
      context: { url: shown },
      hint: 'check that redis-server is running and that PAGEJSON_REDIS_URL or --redis points at it',
      cause: error,
    });
  }
  return client;
}

export function commandSender(client: RedisClient): CommandSender {
  return { sendCommand: <T>(args: ReadonlyArray<string>) => client.sendCommand(args) as Promise<T> };
}

/** Close gracefully (pending replies first); a client already gone is fine. */
export async function closeRedis(client: RedisClient): Promise<void> {
  if (!client.isOpen) return;
  try {
    await client.close();
  } catch {
    if (client.isOpen) client.destroy();
  }
}

/**
 * The Redis URL a process was given: an explicit `--redis` wins over PAGEJSON_REDIS_URL; empty means none.
 * With one, state and cache live in Redis, shared by every daemon and CLI command that points at it.
 */
export function resolveRedisUrl(explicit: string | undefined, env: Record<string, string | undefined>): string | undefined {
  const url = explicit?.trim() || env.PAGEJSON_REDIS_URL?.trim();
  return url ? url : undefined;
}
