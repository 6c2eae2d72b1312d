import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { ApiConfig, ProjectSettings } from '../config/index.js';
import { createDeliveryWorker, type DeliveryEvent, type DeliveryWorker } from './webhooks/delivery-worker.js';
import { createWebhookPublisher, type WebhookPublisher } from './webhooks/publisher.js';
import { createEmbeddedMonitorStore } from './embedded-store.js';
import { createMonitorService, type MonitorRunOutcome, type MonitorService, type RefreshResult } from './monitor-service.js';
import type { MonitorStore } from './store.js';

/**
 * Monitors and webhooks wired together over one MonitorStore: what the daemon runs beside retrieval, and
 * what `pagejson monitor` and `pagejson webhooks` use without a daemon. Built by the runtime; the daemon
 * calls `start()` (the schedule and the outbox), commands drive `monitors` and `deliveries.drain()` directly.
 */
export interface Watch {
  store: MonitorStore;
  monitors: MonitorService;
  publisher: WebhookPublisher;
  deliveries: DeliveryWorker;
  start(): void;
  close(): Promise<void>;
}

export type WatchEvent = DeliveryEvent | { kind: 'monitor'; outcome: MonitorRunOutcome };

export interface WatchOptions {
  settings: ProjectSettings;
  dataDir: string;
  configs(): Iterable<ApiConfig>;
  refresh(config: ApiConfig, values: Record<string, unknown>): Promise<RefreshResult>;
  env: Record<string, string | undefined>;
  now(): number;
  redisUrl?: string;
  /** A ready store (tests); default: Redis when a URL is given, else `<dataDir>/monitors.json`. */
  store?: MonitorStore;
  onEvent?: (event: WatchEvent) => void;
  /** How long one run may keep its slot before another daemon takes it over. */
  leaseMs: number;
  /** How often the outbox is polled (default 1 s). */
  pollMs?: number;
}

export const MONITOR_FILE = 'monitors.json';

export async function openMonitorStore(dataDir: string, redisUrl: string | undefined, now: () => number = Date.now): Promise<MonitorStore> {
  if (redisUrl) return (await import('./redis-store.js')).createRedisMonitorStore({ url: redisUrl });
  // Not pre-created: the adapter writes through a 0600 temp file renamed into place.
  return createEmbeddedMonitorStore({ file: join(dataDir, MONITOR_FILE), now });
}

export async function createWatch(options: WatchOptions): Promise<Watch> {
  const { settings } = options;
  const store = options.store ?? (await openMonitorStore(options.dataDir, options.redisUrl, options.now));
  const emit = (event: WatchEvent): void => options.onEvent?.(event);
  const deliveries = createDeliveryWorker({
    store,
    env: options.env,
    now: options.now,
    ...(options.pollMs !== undefined ? { pollMs: options.pollMs } : {}),
    settings: {
      timeoutMs: settings.webhookDelivery.timeoutMs,
      firstRetryMs: settings.webhookDelivery.firstRetrySeconds * 1000,
      retryForMs: settings.webhookDelivery.retryForHours * 3_600_000,
      allowPrivateNetworks: settings.fetch.allowPrivateNetworks,
    },
    onEvent: emit,
  });
  const publisher = createWebhookPublisher({
    subscribers: settings.webhooks,
    store,
    now: options.now,
    onPublished: () => deliveries.nudge(),
  });
  const monitors = createMonitorService({
    configs: options.configs,
    store,
    publisher,
    refresh: options.refresh,
    now: options.now,
    owner: randomUUID(),
    historyEntries: settings.monitors.historyEntries,
    leaseMs: options.leaseMs,
    onEvent: emit,
  });
  let started = false;
  return {
    store,
    monitors,
    publisher,
    deliveries,
    start() {
      if (started) return;
      started = true;
      deliveries.start();
      if (settings.monitors.enabled) monitors.start();
    },
    async close() {
      await monitors.stop();
      await deliveries.stop();
      await store.flush();
      await store.close();
    },
  };
}
