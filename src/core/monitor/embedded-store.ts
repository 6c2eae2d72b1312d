import { DurableJsonAdapter } from '../state/index.js';
import {
  FINISHED_DELIVERIES_KEPT,
  type Delivery,
  type HealthState,
  type HistoryEntry,
  type MonitorRunState,
  type MonitorStore,
} from './store.js';

/**
 * The embedded MonitorStore: `<dataDir>/monitors.json`, held in memory and rewritten atomically (temp file +
 * rename, see lowdb-adapter.ts) after every change, group-committed. One writer, as with state.json: the
 * daemon, or a CLI command when no daemon runs.
 *
 * Delivery claims are not written: a claim only keeps the one process from sending a delivery twice at once,
 * and after a restart every pending delivery is due again, which is what a restart after kill -9 needs.
 */
interface MonitorFile {
  version: 1;
  runs: Record<string, MonitorRunState>;
  health: Record<string, HealthState>;
  history: Record<string, HistoryEntry[]>;
  leases: Record<string, { owner: string; until: number; finished: boolean }>;
  deliveries: Record<string, Delivery>;
}

// Keys come from configs (apiIds) and event ids: null-prototype maps, so `__proto__` is an ordinary key.
const dictionary = <T>(from?: Record<string, T>): Record<string, T> => Object.assign(Object.create(null) as Record<string, T>, from);

function checkFile(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'does not hold a JSON object';
  for (const part of ['runs', 'health', 'history', 'leases', 'deliveries']) {
    const section = (value as Record<string, unknown>)[part];
    if (typeof section !== 'object' || section === null || Array.isArray(section)) return `has no valid "${part}" section`;
  }
  return undefined;
}

export interface EmbeddedMonitorStoreOptions {
  file: string;
  now?: () => number;
}

export async function createEmbeddedMonitorStore(options: EmbeddedMonitorStoreOptions): Promise<MonitorStore> {
  const now = options.now ?? Date.now;
  const adapter = new DurableJsonAdapter<MonitorFile>(options.file, { check: checkFile });
  const read = await adapter.read();
  const data: MonitorFile = {
    version: 1,
    runs: dictionary(read?.runs),
    health: dictionary(read?.health),
    history: dictionary(read?.history),
    leases: dictionary(read?.leases),
    deliveries: dictionary(read?.deliveries),
  };
  const claimedUntil = new Map<string, number>();

  let writing: Promise<void> = Promise.resolve();
  let pending: Promise<void> | undefined;
  /** Resolves once a write that started after this call has completed (changes of one turn share it). */
  function commit(): Promise<void> {
    pending ??= writing.then(
      () =>
        new Promise<void>((resolve, reject) => {
          setImmediate(() => {
            pending = undefined;
            adapter.write(data).then(resolve, reject);
          });
        }),
    );
    writing = pending.catch(() => undefined);
    return pending;
  }

  function pruneFinished(): void {
    const finished = Object.values(data.deliveries)
      .filter((delivery) => delivery.status !== 'pending')
      .sort((a, b) => (b.deliveredAt ?? b.createdAt) - (a.deliveredAt ?? a.createdAt));
    for (const old of finished.slice(FINISHED_DELIVERIES_KEPT)) delete data.deliveries[old.id];
  }

  function update(id: string, patch: Partial<Delivery>): Promise<void> {
    const delivery = data.deliveries[id];
    if (!delivery) return Promise.resolve();
    Object.assign(delivery, patch);
    claimedUntil.delete(id);
    if (delivery.status !== 'pending') pruneFinished();
    return commit();
  }

  return {
    name: 'embedded',
    async acquireLease(name, owner, ttlMs) {
      const lease = data.leases[name];
      const at = now();
      if (lease && lease.until > at && (lease.finished || lease.owner !== owner)) return false;
      data.leases[name] = { owner, until: at + ttlMs, finished: false };
      // Expired leases go, so the file does not grow with every slot.
      for (const [key, old] of Object.entries(data.leases)) if (old.until <= at) delete data.leases[key];
      await commit();
      return true;
    },
    async finishLease(name, owner, keepMs) {
      data.leases[name] = { owner, until: now() + keepMs, finished: true };
      await commit();
    },
    getRun: async (monitorId) => (Object.hasOwn(data.runs, monitorId) ? structuredClone(data.runs[monitorId]) : undefined),
    listRuns: async () => Object.values(data.runs).map((run) => structuredClone(run)),
    async putRun(state) {
      data.runs[state.monitorId] = structuredClone(state);
      await commit();
    },
    async swapHealth(apiId, state) {
      const previous = Object.hasOwn(data.health, apiId) ? data.health[apiId] : undefined;
      data.health[apiId] = state;
      if (previous !== state) await commit();
      return previous;
    },
    async addHistory(entry, keep) {
      const list = (data.history[entry.apiId] ??= []);
      list.unshift(structuredClone(entry));
      list.length = Math.min(list.length, keep);
      await commit();
    },
    history: async (apiId, limit) =>
      Object.hasOwn(data.history, apiId) ? data.history[apiId]!.slice(0, limit).map((entry) => structuredClone(entry)) : [],
    async enqueue(deliveries) {
      for (const delivery of deliveries) data.deliveries[delivery.id] = { ...delivery };
      await commit();
    },
    async claimDue(at, leaseMs, limit) {
      const due = Object.values(data.deliveries)
        .filter((delivery) => delivery.status === 'pending' && delivery.nextAttemptAt <= at && (claimedUntil.get(delivery.id) ?? 0) <= at)
        .sort((a, b) => a.nextAttemptAt - b.nextAttemptAt)
        .slice(0, limit);
      for (const delivery of due) claimedUntil.set(delivery.id, at + leaseMs);
      return due.map((delivery) => ({ ...delivery }));
    },
    delivered: (id, at) =>
      update(id, { status: 'delivered', deliveredAt: at, lastError: null, attempts: (data.deliveries[id]?.attempts ?? 0) + 1 }),
    retryLater: (id, attempts, nextAttemptAt, error) => update(id, { attempts, nextAttemptAt, lastError: error }),
    giveUp: (id, attempts, error, at) => update(id, { status: 'failed', attempts, lastError: error, deliveredAt: at }),
    deliveries: async (limit) =>
      Object.values(data.deliveries)
        .sort((a, b) => b.createdAt - a.createdAt)
        .slice(0, limit)
        .map((delivery) => ({ ...delivery })),
    async flush() {
      await writing;
      await adapter.durable();
    },
    async close() {
      await writing;
      await adapter.durable();
    },
  };
}
