import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import lockfile from 'proper-lockfile';
import { Client } from 'undici';
import { loadConfigDir } from '../core/registry/load.js';
import type { Project } from '../core/config/project.js';
import { PagejsonError, type ErrorCode } from '../core/shared/errors.js';
import { isProcessAlive } from '../core/shared/process-alive.js';
import { prepareDataDir } from '../core/shared/fs/data-dir.js';
import { createStateService, type StateOperations } from '../core/access/state-service.js';
import { createLowdbStore } from '../core/state/lowdb-store.js';
import { resolveRedisUrl } from '../core/state/redis-connection.js';
import type { UsageQuery } from '../core/state/types.js';

/**
 * The CLI's way to the state (docs/state.md). While a daemon runs it is the only writer, so commands
 * talk to it over `<dataDir>/admin.sock`; when none answers, the command opens the embedded store itself
 * and flushes and closes it when done. Both modes expose the same StateOperations and answer identically.
 */
export interface StateClient extends StateOperations {
  readonly mode: 'daemon' | 'local';
  /** The StateStore behind it (`lowdb`, `redis`), and for Redis the URL without credentials. */
  readonly driver: string;
  readonly driverUrl?: string;
  close(): Promise<void>;
}

export const ADMIN_SOCKET_FILE = 'admin.sock';
export const STATE_FILE = 'state.json';

export const adminSocketPath = (dataDir: string): string => join(dataDir, ADMIN_SOCKET_FILE);
export const stateFilePath = (dataDir: string): string => join(dataDir, STATE_FILE);

export interface OpenStateClientOptions {
  /**
   * How long a listening daemon may take to answer before it counts as gone. A dead daemon's socket is refused
   * at once, so this only matters for a busy or hung one; generous, because falling back is the worse outcome.
   */
  probeTimeoutMs?: number;
  /** Where PAGEJSON_REDIS_URL is read (default: this process's environment). */
  env?: Record<string, string | undefined>;
}

export async function openStateClient(project: Project, options: OpenStateClientOptions = {}): Promise<StateClient> {
  // With Redis there is no single writer to go through: every command and daemon talks to Redis itself.
  const redisUrl = resolveRedisUrl(undefined, options.env ?? process.env);
  if (redisUrl) return openRedisStateClient(project, redisUrl);
  // Before trusting a socket or a file in it: a data dir others can write is refused (docs/security.md).
  await prepareDataDir(project.dataDir);
  const remote = await connectAdminSocket(adminSocketPath(project.dataDir), options.probeTimeoutMs ?? 5_000);
  if (remote) return remote;
  await refuseIfDaemonAlive(project.dataDir);
  return openLocalStateClient(project);
}

/** A client over the admin socket, or undefined when nothing answers there (no daemon, or a stale file). */
export async function connectAdminSocket(socketPath: string, timeoutMs = 2_000): Promise<StateClient | undefined> {
  const connection = await openAdminConnection(socketPath, timeoutMs);
  return connection && remoteClient(connection.client, connection.driver);
}

/** The admin socket's connection once it answered its health probe, and the daemon's state driver. */
export async function openAdminConnection(socketPath: string, timeoutMs: number): Promise<{ client: Client; driver: string } | undefined> {
  if (!existsSync(socketPath)) return undefined;
  const client = new Client('http://pagejson-admin', { socketPath, connectTimeout: timeoutMs, headersTimeout: 0, bodyTimeout: 0 });
  let driver = 'unknown';
  try {
    const probe = await client.request({ path: '/health', method: 'GET', headersTimeout: timeoutMs });
    const health = (await probe.body.json().catch(() => ({}))) as { store?: unknown };
    if (probe.statusCode !== 200) throw new Error(`status ${probe.statusCode}`);
    if (typeof health.store === 'string') driver = health.store;
  } catch {
    await client.destroy().catch(() => undefined);
    return undefined;
  }
  return { client, driver };
}

/** A JSON call on the admin socket; an admin error answer becomes the PagejsonError the daemon threw. */
export function adminCaller(client: Client): <T>(method: 'GET' | 'POST', path: string, body?: unknown) => Promise<T> {
  return async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const response = await client
      .request({
        path,
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      .catch((error: unknown) => {
        throw new PagejsonError('DAEMON_UNREACHABLE', `the daemon's admin socket stopped answering: ${(error as Error).message}`, {
          hint: 'check that `pagejson serve` is still running, then try again',
          cause: error,
        });
      });
    const value = (await response.body.json()) as T & {
      error?: { code: ErrorCode; message: string; hint?: string; context?: Record<string, unknown> };
    };
    if (response.statusCode >= 400) {
      const error = value.error ?? { code: 'INTERNAL' as const, message: `admin request failed with status ${response.statusCode}` };
      throw new PagejsonError(error.code, error.message, { hint: error.hint, context: error.context });
    }
    return value;
  };
}

function remoteClient(client: Client, driver: string): StateClient {
  const call = adminCaller(client);
  const query = (params: Record<string, string | number | undefined>): string => {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(params)) if (value !== undefined) search.set(name, String(value));
    const text = search.toString();
    return text ? `?${text}` : '';
  };
  return {
    mode: 'daemon',
    driver,
    createKey: (input) => call('POST', '/keys', input),
    listKeys: () => call('GET', '/keys'),
    revokeKey: (id) => call('POST', `/keys/${encodeURIComponent(id)}/revoke`, {}),
    rotateKey: (id, graceMs) => call('POST', `/keys/${encodeURIComponent(id)}/rotate`, { graceMs }),
    credits: (account) => call('GET', `/credits${query({ account })}`),
    grantCredits: (account, milliCredits) => call('POST', '/credits/grant', { account, milliCredits }),
    charge: (account, milliCredits, tokens) => call('POST', '/credits/charge', { account, milliCredits, ...tokens }),
    usage: (q: UsageQuery) => call('GET', `/usage${query({ apiId: q.apiId, keyId: q.keyId, days: q.days })}`),
    status: () => call('GET', '/status'),
    endpointStates: () => call('GET', '/endpoints/state'),
    observe: (observations) => call<{ ok: boolean }>('POST', '/endpoints/observations', observations).then(() => undefined),
    close: () => client.close(),
  };
}

/**
 * No socket answered, but a daemon whose pid is alive still holds the lock: writing the file beside it would
 * lose updates (lowdb is single-writer), so refuse rather than guess.
 */
export async function refuseIfDaemonAlive(dataDir: string): Promise<void> {
  let pid: number;
  try {
    pid = Number.parseInt((await readFile(join(dataDir, 'daemon.lock'), 'utf8')).trim(), 10);
  } catch {
    return;
  }
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || !isProcessAlive(pid)) return;
  throw new PagejsonError('DAEMON_UNREACHABLE', `a pagejson daemon (pid ${pid}) holds ${dataDir} but its admin socket does not answer`, {
    context: { pid, dataDir },
    hint: 'wait for the daemon to finish starting, or stop it and run the command again',
  });
}

/**
 * The store opened by this process. Two CLI commands run side by side (a script granting credits in a loop)
 * would each read, change and rewrite state.json and lose each other's updates, so a local client holds
 * `<dataDir>/state.lock` from before it reads the file until it has flushed and closed it.
 */
export async function openLocalStateClient(project: Project, options: { lockWaitMs?: number } = {}): Promise<StateClient> {
  await prepareDataDir(project.dataDir);
  const release = await lockState(project.dataDir, options.lockWaitMs ?? 15_000);
  try {
    const store = await createLowdbStore({ file: stateFilePath(project.dataDir) });
    const service = createStateService({
      store,
      credits: project.settings.credits,
      listConfigs: async () => [...(await loadConfigDir(project.configsDir)).configs.values()],
    });
    let closed: Promise<void> | undefined;
    const close = () => (closed ??= store.close().finally(() => release().catch(() => undefined)));
    return { mode: 'local', driver: store.name, ...service, close };
  } catch (error) {
    await release().catch(() => undefined);
    throw error;
  }
}

/** The Redis store opened by this command: no lock and no daemon needed, Redis serialises the writes. */
async function openRedisStateClient(project: Project, url: string): Promise<StateClient> {
  const { createRedisStore } = await import('../core/state/redis-store.js');
  const store = await createRedisStore({ url });
  const service = createStateService({
    store,
    credits: project.settings.credits,
    listConfigs: async () => [...(await loadConfigDir(project.configsDir)).configs.values()],
  });
  let closed: Promise<void> | undefined;
  return { mode: 'local', driver: store.name, driverUrl: store.url, ...service, close: () => (closed ??= store.close()) };
}

export async function lockState(dataDir: string, waitMs: number): Promise<() => Promise<void>> {
  const lockfilePath = join(dataDir, 'state.lock');
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      // A short command never loses its lock; if the mtime refresh fails anyway, finishing is still right.
      return await lockfile.lock(dataDir, { lockfilePath, realpath: false, stale: 10_000, onCompromised: () => undefined });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
      if (Date.now() >= deadline) {
        throw new PagejsonError('STATE_LOCKED', `another pagejson command is using the state in ${dataDir}`, {
          context: { lock: lockfilePath },
          hint: 'wait for it to finish and try again',
        });
      }
      await new Promise((resolve) => setTimeout(resolve, 25 + Math.floor(Math.random() * 50)));
    }
  }
}

/** Open the state for one command and always close it (flushing local writes), even when the command fails. */
export async function withStateClient<T>(project: Project, use: (client: StateClient) => Promise<T>): Promise<T> {
  const client = await openStateClient(project);
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}
