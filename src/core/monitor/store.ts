import type { DataChange } from './diff.js';

/**
 * The seam for what monitors and webhooks keep (schedules' leases, each monitor's last data, the history of
 * changes, the webhook outbox). Two drivers, chosen with the StateStore: embedded (`<dataDir>/monitors.json`,
 * written atomically, one daemon) and Redis (any number of daemons). Both pass
 * test/contract/monitor-store.contract.ts.
 *
 * Durability: `enqueue`, `delivered`, `retryLater` and `giveUp` resolve once the change would survive a
 * kill -9; a delivery acknowledged by its receiver is recorded before the next one is claimed.
 */
export type HealthState = 'healthy' | 'degraded' | 'broken';

export interface MonitorRunState {
  /** `<apiId>` or `<apiId>#<n>` for the n-th variable set of a dynamic config. */
  monitorId: string;
  apiId: string;
  lastSlot: string | null;
  lastRunAt: string | null;
  /** `blocked`: the source answered with a block page (docs/block-pages.md); recorded, never compared as a change. */
  lastOutcome: 'ok' | 'degraded' | 'broken' | 'blocked' | 'error' | null;
  lastError: string | null;
  /** Data of the last healthy run: what the next run is compared with. */
  lastData?: unknown;
  lastDataAt?: string | null;
}

export interface HistoryEntry {
  at: string;
  monitorId: string;
  apiId: string;
  kind: 'data.changed' | 'endpoint.degraded' | 'endpoint.broken' | 'endpoint.recovered' | 'heal.proposed';
  variables?: Record<string, unknown>;
  diff?: DataChange;
  failingFields?: string[];
  detail?: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface Delivery {
  /** The Standard Webhooks message id (`msg_…`): the same on every attempt, so receivers can deduplicate. */
  id: string;
  url: string;
  secretEnv: string;
  type: string;
  /** The JSON body exactly as signed and sent. */
  payload: string;
  createdAt: number;
  attempts: number;
  nextAttemptAt: number;
  status: DeliveryStatus;
  lastError: string | null;
  deliveredAt: number | null;
}

export interface MonitorStore {
  readonly name: string;
  /**
   * Takes the named lease for `ttlMs` unless someone holds it or it was finished: true when this owner has it.
   * A holder that dies lets the lease expire, and the next taker runs what it guarded.
   */
  acquireLease(name: string, owner: string, ttlMs: number): Promise<boolean>;
  /** Marks the lease finished for `keepMs`: no one takes it again in that time. */
  finishLease(name: string, owner: string, keepMs: number): Promise<void>;

  getRun(monitorId: string): Promise<MonitorRunState | undefined>;
  listRuns(): Promise<MonitorRunState[]>;
  putRun(state: MonitorRunState): Promise<void>;

  /** Health as last seen for an apiId, replaced by `state`: the previous one (atomic across daemons). */
  swapHealth(apiId: string, state: HealthState): Promise<HealthState | undefined>;

  addHistory(entry: HistoryEntry, keep: number): Promise<void>;
  /** Newest first. */
  history(apiId: string, limit: number): Promise<HistoryEntry[]>;

  enqueue(deliveries: Delivery[]): Promise<void>;
  /** Pending deliveries due at `now`, each claimed for `leaseMs` (another daemon does not take them meanwhile). */
  claimDue(now: number, leaseMs: number, limit: number): Promise<Delivery[]>;
  delivered(id: string, at: number): Promise<void>;
  retryLater(id: string, attempts: number, nextAttemptAt: number, error: string): Promise<void>;
  giveUp(id: string, attempts: number, error: string, at: number): Promise<void>;
  /** Pending deliveries and the latest finished ones, newest first. */
  deliveries(limit: number): Promise<Delivery[]>;

  flush(): Promise<void>;
  close(): Promise<void>;
}

/** How many finished deliveries are kept for `pagejson webhooks list`. */
export const FINISHED_DELIVERIES_KEPT = 200;
