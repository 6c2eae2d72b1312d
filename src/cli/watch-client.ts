import { mkdir } from 'node:fs/promises';
import type { Client } from 'undici';
import type { Project } from '../core/config/project.js';
import type { MonitorRunOutcome, MonitorView } from '../core/monitor/monitor-service.js';
import type { Delivery, HistoryEntry } from '../core/monitor/store.js';
import { createRuntime } from '../core/runtime.js';
import { resolveRedisUrl } from '../core/state/redis-connection.js';
import { createCliExtractor } from './local-retriever.js';
import { adminCaller, adminSocketPath, lockState, openAdminConnection, refuseIfDaemonAlive } from './state-client.js';

/**
 * The CLI's way to monitors and webhooks. While a daemon runs it holds the embedded monitor store and runs
 * the schedules, so `pagejson monitor` asks it over the admin socket; otherwise the command builds a runtime
 * of its own (the same retrieval path and extraction budget), under the state lock.
 */
export type DeliveryView = Omit<Delivery, 'payload'>;

export interface WatchClient {
  readonly mode: 'daemon' | 'local';
  list(): Promise<MonitorView[]>;
  history(apiId: string, limit: number): Promise<HistoryEntry[]>;
  /** Runs now; locally, also attempts the deliveries it caused once (the daemon retries what fails). */
  run(apiId: string): Promise<MonitorRunOutcome[]>;
  deliveries(limit: number): Promise<DeliveryView[]>;
  close(): Promise<void>;
}

/** `env` is the command's (with `--allow-secret` in PAGEJSON_SECRETS): monitors run locally read their secrets from it. */
export async function withWatchClient<T>(
  project: Project,
  use: (client: WatchClient) => Promise<T>,
  env: Record<string, string | undefined> = process.env,
): Promise<T> {
  const client = await openWatchClient(project, env);
  try {
    return await use(client);
  } finally {
    await client.close();
  }
}

async function openWatchClient(project: Project, env: Record<string, string | undefined>): Promise<WatchClient> {
  const redisUrl = resolveRedisUrl(undefined, env);
  if (!redisUrl) {
    const connection = await openAdminConnection(adminSocketPath(project.dataDir), 5_000);
    if (connection) return daemonClient(connection.client);
    await refuseIfDaemonAlive(project.dataDir);
  }
  await mkdir(project.dataDir, { recursive: true, mode: 0o700 });
  const release = redisUrl ? async () => undefined : await lockState(project.dataDir, 15_000);
  try {
    // The daemon's extraction budget and the project's limits (issue 40), in one thread: a run is one page at a time.
    const runtime = await createRuntime(project, { env, watch: false, extractor: await createCliExtractor(project) });
    const { monitors, deliveries, store } = runtime.watch;
    return {
      mode: 'local',
      list: () => monitors.list(),
      history: (apiId, limit) => monitors.history(apiId, limit),
      async run(apiId) {
        const outcomes = await monitors.runNow(apiId);
        await deliveries.drain();
        return outcomes;
      },
      deliveries: async (limit) => (await store.deliveries(limit)).map(({ payload: _payload, ...rest }) => rest),
      close: () => runtime.close().finally(() => release().catch(() => undefined)),
    };
  } catch (error) {
    await release().catch(() => undefined);
    throw error;
  }
}

function daemonClient(client: Client): WatchClient {
  const call = adminCaller(client);
  return {
    mode: 'daemon',
    list: () => call('GET', '/monitors'),
    history: (apiId, limit) => call('GET', `/monitors/${encodeURIComponent(apiId)}/history?limit=${limit}`),
    run: (apiId) => call('POST', `/monitors/${encodeURIComponent(apiId)}/run`),
    deliveries: (limit) => call('GET', `/webhooks/deliveries?limit=${limit}`),
    close: () => client.close(),
  };
}
