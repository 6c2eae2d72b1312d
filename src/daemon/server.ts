import { chmod, mkdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Project } from '../core/config/project.js';
import { isPagejsonError, PagejsonError } from '../core/shared/errors.js';
import { createRuntime, type Runtime, type RuntimeOptions } from '../core/runtime.js';
import { resolveRedisUrl } from '../core/state/redis-connection.js';
import { buildAdminApp } from './admin.js';
import { buildApp, type BuildAppOptions, type DaemonApp } from './app.js';
import { startAllocatorTrimmer } from './allocator-trim.js';
import { limitHeapGrowth } from './heap-growth.js';
import { acquireDaemonLock, type DaemonLock } from './lock.js';
import { listenMetrics, type MetricsListener } from './metrics-listener.js';
import { settingsOnReload, type SettingsReload } from './settings-reload.js';

/**
 * startServer: the running daemon. Takes the data-dir lock (one writer of the embedded state), wires the
 * runtime, listens the retrieval app on host:port and the admin app on `<dataDir>/admin.sock` (mode 0600),
 * and knows how to stop: drain (new requests get a 503 envelope), let in-flight requests finish, flush the
 * state, release the lock. Signals are installed by the `serve` command, not here, so tests can start
 * several servers in one process.
 */
export interface ServerOptions {
  project: Project;
  host?: string;
  port?: number;
  watch?: boolean;
  env?: Record<string, string | undefined>;
  app?: BuildAppOptions;
  runtime?: Omit<RuntimeOptions, 'env' | 'watch'>;
  /** Overrides `metrics.listen` of pagejson.json (tests pass '127.0.0.1:0' or false). */
  metricsListen?: string | false;
}

export interface RunningServer {
  app: DaemonApp;
  /** Absent for a further daemon sharing Redis on a data dir whose first daemon holds the socket. */
  admin: FastifyInstance | undefined;
  runtime: Runtime;
  /** `http://host:port` as bound (port 0 resolved). */
  url: string;
  port: number;
  socketPath: string;
  lockPath: string;
  /** Where /metrics is served (undefined: not served on a listener of its own). */
  metricsUrl: string | undefined;
  /** SIGHUP: re-read every config file, and say which settings of pagejson.json changed (each needs a restart). */
  reload(): Promise<SettingsReload>;
  /** Graceful stop; idempotent. */
  close(): Promise<void>;
}

export const LOCK_FILE = 'daemon.lock';
export const ADMIN_SOCKET = 'admin.sock';

/** A failure to listen in words: the port taken, a privileged port, an address this machine lacks. */
function rethrowListenError(error: unknown, host: string, port: number): never {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') {
    throw new PagejsonError('PORT_IN_USE', `port ${port} on ${host} is already in use`, {
      context: { host, port },
      hint: `stop what listens there, or pick another port: pagejson serve --port ${port + 1} (or server.port in pagejson.json)`,
      cause: error,
    });
  }
  if (code === 'EADDRNOTAVAIL' || code === 'EACCES') {
    throw new PagejsonError(
      'PORT_IN_USE',
      `cannot listen on ${host}:${port} (${code === 'EACCES' ? 'permission denied' : 'no such address on this machine'})`,
      {
        context: { host, port },
        hint:
          code === 'EACCES' ? 'ports below 1024 need privileges: use --port 8080' : 'use --host 127.0.0.1, or an address this machine has',
        cause: error,
      },
    );
  }
  throw error;
}

/** The http:// URL of a bound TCP address (IPv6 in brackets), or undefined for a pipe or no address. */
function httpUrlOf(bound: AddressInfo | string | null): string | undefined {
  return typeof bound === 'object' && bound
    ? `http://${bound.address.includes(':') ? `[${bound.address}]` : bound.address}:${bound.port}`
    : undefined;
}

/** Jobs a stopped daemon left queued or running go on from their results (docs/jobs.md). */
async function resumeJobs(runtime: Runtime, log: FastifyBaseLogger): Promise<void> {
  const resumed = await runtime.jobs.resume();
  if (resumed > 0) log.info({ jobs: resumed }, 'resumed jobs');
}

/** Unhealthy answers are logged once per episode (retrieval/endpoint-status.ts): a client reading only the status would not see them. */
function logUnhealthyAnswers(runtime: Runtime, log: FastifyBaseLogger): void {
  runtime.subscribe((event) => {
    if (event.kind !== 'unhealthy') return;
    log.warn(
      { apiId: event.apiId, health: event.state, findings: event.findings.slice(0, 5) },
      event.refused
        ? `${event.state} answers refused (health.refuseDegraded): \`pagejson heal ${event.apiId}\` repairs it`
        : `serving ${event.state} data (X-Pagejson-Health: ${event.state}): \`pagejson heal ${event.apiId}\` repairs it`,
    );
  });
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const { project } = options;
  await mkdir(project.dataDir, { recursive: true, mode: 0o700 });
  const lockPath = join(project.dataDir, LOCK_FILE);
  const socketPath = join(project.dataDir, ADMIN_SOCKET);
  const lock: DaemonLock = await acquireLockUnlessShared(
    lockPath,
    project.dataDir,
    resolveRedisUrl(options.runtime?.redisUrl, options.env ?? {}) !== undefined,
  );
  const ownsAdminSocket = lock.path === lockPath;

  let runtime: Runtime | undefined;
  let app: DaemonApp | undefined;
  let admin: FastifyInstance | undefined;
  let metricsListener: MetricsListener | undefined;
  // Bounds what bursts of misses leave behind: V8 collects its old generation sooner (heap-growth.ts), and
  // what that frees in the allocator's heaps goes back to the system (allocator-trim.ts).
  limitHeapGrowth();
  const trimmer = startAllocatorTrimmer();
  try {
    // Every daemon on a Redis takes job items from its queue (docs/jobs.md, "On Redis").
    runtime = await createRuntime(project, { jobWorker: true, ...options.runtime, env: options.env ?? {}, watch: options.watch ?? true });
    const tokenEnv = project.settings.metrics.tokenEnv;
    const metricsToken = tokenEnv ? options.env?.[tokenEnv] : undefined;
    app = await buildApp(runtime, { ...options.app, ...(metricsToken ? { metricsToken } : {}) });
    const host = options.host ?? project.settings.server.host;
    const port = options.port ?? project.settings.server.port;
    await app.listen({ host, port }).catch((error: unknown) => rethrowListenError(error, host, port));
    const publicUrl = httpUrlOf(app.server.address());
    admin = ownsAdminSocket ? await listenAdmin(runtime, socketPath, publicUrl, app) : undefined;
    const listen = options.metricsListen ?? project.settings.metrics.listen;
    const log = app.log;
    if (listen !== false) metricsListener = await listenMetrics(app.metrics, listen, (message) => log.warn(message));
    logUnhealthyAnswers(runtime, log);
    // Schedules and the webhook outbox start once the daemon answers: a monitor's first run fills its cache.
    runtime.watch.start();
    await resumeJobs(runtime, log);
  } catch (error) {
    trimmer.stop();
    await metricsListener?.close().catch(() => undefined);
    await app?.close().catch(() => undefined);
    await runtime?.close().catch(() => undefined);
    await lock.release();
    throw error;
  }

  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const host = typeof address === 'object' && address ? address.address : '127.0.0.1';
  const urlHost = host.includes(':') ? `[${host}]` : host;
  const live = { app, admin, runtime };

  let closing: Promise<void> | undefined;
  return {
    ...live,
    url: `http://${urlHost}:${port}`,
    metricsUrl: metricsListener?.url,
    port,
    socketPath,
    lockPath,
    reload: async () => {
      await live.runtime.configs.reload();
      return settingsOnReload(project, options.env ?? {});
    },
    close() {
      closing ??= (async () => {
        live.app.startDraining();
        // Fastify waits for in-flight requests, then closes idle keep-alive connections.
        await Promise.allSettled([live.app.close(), live.admin?.close(), metricsListener?.close()]);
        await live.runtime.close();
        trimmer.stop();
        if (ownsAdminSocket) await unlink(socketPath).catch(() => undefined);
        await lock.release();
      })();
      return closing;
    },
  };
}

/**
 * With Redis there is no single-writer rule (docs/state.md): any number of daemons share it. The first
 * daemon on a data dir still takes the lock and the admin socket, so CLI commands there reach the shared
 * state through it; a further one runs without either (its lock is a no-op with an empty path).
 */
async function acquireLockUnlessShared(lockPath: string, dataDir: string, sharedState: boolean): Promise<DaemonLock> {
  try {
    return await acquireDaemonLock(lockPath, dataDir);
  } catch (error) {
    if (!sharedState || !isPagejsonError(error) || error.code !== 'DAEMON_RUNNING') throw error;
    return { path: '', release: async () => undefined };
  }
}

async function listenAdmin(runtime: Runtime, socketPath: string, publicUrl: string | undefined, app: DaemonApp): Promise<FastifyInstance> {
  // We hold the lock, so a socket file left here belongs to a dead daemon.
  await unlink(socketPath).catch(() => undefined);
  const admin = buildAdminApp({
    store: runtime.store,
    listConfigs: () => runtime.configs.list(),
    observe: (observation) => runtime.retrieval.observe(observation),
    settings: runtime.settings,
    now: runtime.now,
    publicUrl: () => publicUrl,
    watch: runtime.watch,
    dashboardLoginLink: () => app.dashboardLoginLink(),
  });
  // The socket is created with the umask's mode: tighten the umask around listen so it is never group- or
  // world-accessible, not even for the moment before chmod.
  const previous = process.umask(0o177);
  try {
    await admin.listen({ path: socketPath });
  } finally {
    process.umask(previous);
  }
  await chmod(socketPath, 0o600);
  return admin;
}
