import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { chmod, lstat, mkdir, open, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { checkDataDir, linkRefused, PagejsonError, readNoFollow } from '../../shared/index.js';
import type { StoredSession } from './types.js';

/**
 * Where login sessions are kept between fetches, restarts and daemons (docs/access.md, "Logins"): a private file
 * per endpoint under the data dir (`<dataDir>/logins/<apiId>.json`, folder 0700, file 0600, never through a
 * link), or Redis when the daemon's state is there (`pagejson:login:<apiId>`), so daemons sharing a Redis share
 * one session. A session is as sensitive as the credentials it was made with (docs/security.md).
 *
 * `exclusive` is the one-login-at-a-time lock: in one process for files, across processes for Redis (a lock
 * key with a token, expiring on its own if its holder dies).
 */
export interface SessionStore {
  readonly kind: 'files' | 'redis' | 'memory';
  read(endpoint: string): Promise<StoredSession | undefined>;
  write(session: StoredSession): Promise<void>;
  /** Runs `work` holding the endpoint's login lock, waiting for another holder first (bounded by `signal`). */
  exclusive<T>(endpoint: string, work: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  close(): Promise<void>;
}

/** apiIds are checked by the config schema; a session file name is checked again, being a path. */
export const ENDPOINT_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;
export const MAX_SESSION_BYTES = 1024 * 1024;

export function checkedName(endpoint: string): string {
  if (!ENDPOINT_NAME.test(endpoint))
    throw new PagejsonError('INTERNAL', 'not an endpoint name', { context: { endpoint: endpoint.slice(0, 80) } });
  return endpoint;
}

/** Whether a kept object has the shape of a StoredSession (files and Redis values are read as untrusted). */
export function isStoredSession(value: unknown): value is StoredSession {
  if (typeof value !== 'object' || value === null) return false;
  const record = value as Record<string, unknown>;
  return (
    record.version === 1 &&
    typeof record.id === 'string' &&
    typeof record.endpoint === 'string' &&
    typeof record.settingsKey === 'string' &&
    typeof record.createdAt === 'string' &&
    typeof record.jar === 'object' &&
    record.jar !== null
  );
}

export function parseStored(text: string, endpoint: string): StoredSession | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isStoredSession(value) && value.endpoint === endpoint ? value : undefined;
  } catch {
    return undefined;
  }
}

/** One promise chain per endpoint: callers run one after another. */
export function localLocks(): <T>(endpoint: string, work: () => Promise<T>) => Promise<T> {
  const tails = new Map<string, Promise<unknown>>();
  return (endpoint, work) => {
    const before = tails.get(endpoint) ?? Promise.resolve();
    const run = before.then(work, work);
    const tail = run.catch(() => undefined);
    tails.set(endpoint, tail);
    void tail.then(() => {
      if (tails.get(endpoint) === tail) tails.delete(endpoint);
    });
    return run;
  };
}

/** Writes a private file: a fresh 0600 temp name (never an existing file or a link), synced, renamed over. */
async function writePrivate(path: string, text: string): Promise<void> {
  const temp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temp, path).catch(async (error: unknown) => {
    await unlink(temp).catch(() => undefined);
    throw error;
  });
}

export function createFileSessionStore(dataDir: string): SessionStore {
  const dir = join(dataDir, 'logins');
  const lock = localLocks();
  let ready: Promise<void> | undefined;
  // The data dir is checked (owner, mode) before anything is written in it (docs/security.md).
  const prepare = (): Promise<void> =>
    (ready ??= (async () => {
      await mkdir(dataDir, { recursive: true, mode: 0o700 });
      await checkDataDir(dataDir);
      await mkdir(dir, { mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      });
      // A link (or a file) in its place is refused, never followed: chmod and writes would go where it points.
      const info = await lstat(dir);
      if (info.isSymbolicLink() || !info.isDirectory()) throw linkRefused(dir);
      await chmod(dir, 0o700);
    })().catch((error: unknown) => {
      ready = undefined;
      throw error;
    }));
  return {
    kind: 'files',
    async read(endpoint) {
      const path = join(dir, `${checkedName(endpoint)}.json`);
      const bytes = await readNoFollow(path).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw error;
      });
      if (!bytes || bytes.byteLength > MAX_SESSION_BYTES) return undefined;
      return parseStored(bytes.toString('utf8'), endpoint);
    },
    async write(session) {
      await prepare();
      await writePrivate(join(dir, `${checkedName(session.endpoint)}.json`), JSON.stringify(session));
    },
    exclusive: (endpoint, work) => lock(endpoint, work),
    close: () => Promise.resolve(),
  };
}

/** Sessions in this process only (tests, and callers without a data dir). */
export function createMemorySessionStore(): SessionStore {
  const kept = new Map<string, string>();
  const lock = localLocks();
  return {
    kind: 'memory',
    read: (endpoint) => Promise.resolve(kept.has(endpoint) ? parseStored(kept.get(endpoint)!, endpoint) : undefined),
    write: (session) => {
      kept.set(session.endpoint, JSON.stringify(session));
      return Promise.resolve();
    },
    exclusive: (endpoint, work) => lock(endpoint, work),
    close: () => Promise.resolve(),
  };
}
