import { resolveSourceUrl, type ApiConfig } from '../config/index.js';
import { isPagejsonError } from '../shared/index.js';
import type { WebhookPublisher } from './webhooks/publisher.js';
import { diffData, isEmptyChange, type DataChange } from './diff.js';
import type { HealthState, HistoryEntry, MonitorRunState, MonitorStore } from './store.js';
import { monitorTargets, type MonitorTarget } from './targets.js';

/**
 * The daemon's watch over endpoints (`monitor` in a config): runs each scheduled slot once across every
 * daemon sharing the store (a lease per monitor and slot; a holder that dies lets it expire and another
 * daemon takes the slot over), refreshes the endpoint through the retrieval path (so its cache stays warm
 * and its health is recorded), compares the data with the last healthy run and publishes `data.changed`
 * with the difference. Health changes seen by any retrieval become `endpoint.*` events, once each: the
 * store swaps the last health atomically, so only the daemon that saw the change first publishes it.
 *
 * Time comes from `now()` and runs happen in `tick()`: tests drive both; the daemon's timer only calls tick.
 */
export type RefreshResult =
  { ok: true; data: Record<string, unknown>; health: HealthState; failing: string[] } | { ok: false; error: string; health?: HealthState };

export interface MonitorRunOutcome {
  monitorId: string;
  apiId: string;
  slot: string | null;
  outcome: NonNullable<MonitorRunState['lastOutcome']>;
  changed: boolean;
  diff?: DataChange;
  error?: string;
}

export interface MonitorView {
  monitorId: string;
  apiId: string;
  every: string;
  variables: Record<string, unknown>;
  nextRunAt: string;
  lastRunAt: string | null;
  lastOutcome: MonitorRunState['lastOutcome'];
  lastError: string | null;
}

export interface MonitorServiceOptions {
  configs(): Iterable<ApiConfig>;
  store: MonitorStore;
  publisher: WebhookPublisher;
  /** Fetch and extract through the retrieval path, filling the cache (RetrievalService.refresh). */
  refresh(config: ApiConfig, values: Record<string, unknown>): Promise<RefreshResult>;
  now(): number;
  /** This daemon's id in leases. */
  owner: string;
  historyEntries: number;
  /** How long a run may hold its slot before another daemon takes it over. */
  leaseMs: number;
  /** Runs at once (each also waits for its origin's queue in the scraper pool). */
  concurrency?: number;
  onEvent?: (event: { kind: 'monitor'; outcome: MonitorRunOutcome }) => void;
}

export interface MonitorService {
  /** Runs every slot that is due now and not yet run by any daemon. */
  tick(): Promise<MonitorRunOutcome[]>;
  /** Runs an endpoint's monitors now, outside the schedule (`pagejson monitor run`). */
  runNow(apiId: string): Promise<MonitorRunOutcome[]>;
  /** A retrieval's extraction came out with this health (any request, not only monitors). */
  observeHealth(config: ApiConfig, state: HealthState, failing: string[], findings?: string[]): Promise<void>;
  /** The daemon's background repair wrote a proposal. */
  healProposed(event: { apiId: string; file: string; revision: number; recovery: { found: number; total: number } }): Promise<void>;
  list(): Promise<MonitorView[]>;
  history(apiId: string, limit: number): Promise<HistoryEntry[]>;
  /** Calls tick on time until stopped (the daemon). */
  start(): void;
  /** Ticks soon (configs changed). */
  wake(): void;
  stop(): Promise<void>;
}

const MAX_SLEEP_MS = 60_000;

export function createMonitorService(options: MonitorServiceOptions): MonitorService {
  const { store, publisher } = options;
  const handled = new Map<string, string>();
  let timer: NodeJS.Timeout | undefined;
  let ticking: Promise<MonitorRunOutcome[]> | undefined;
  let stopped = false;
  // Health observations run beside requests; stop() waits for them so their events are recorded.
  const observing = new Set<Promise<void>>();
  const targets = (): MonitorTarget[] => monitorTargets(options.configs());

  async function publish(
    type: HistoryEntry['kind'],
    entry: Omit<HistoryEntry, 'kind' | 'at'>,
    data: Record<string, unknown>,
  ): Promise<void> {
    const at = new Date(options.now()).toISOString();
    await store.addHistory({ ...entry, kind: type, at }, options.historyEntries);
    await publisher.publish(type, data);
  }

  async function observe(config: ApiConfig, state: HealthState, failing: string[], findings: string[] = []): Promise<void> {
    const previous = await store.swapHealth(config.apiId, state);
    if (previous === state || (previous === undefined && state === 'healthy')) return;
    const apiId = config.apiId;
    const since = new Date(options.now()).toISOString();
    if (state === 'healthy') {
      return publish(
        'endpoint.recovered',
        { monitorId: apiId, apiId, detail: `was ${previous}` },
        { apiId, health: 'healthy', previous: previous ?? null, since, revision: config.revision },
      );
    }
    const type = state === 'broken' ? 'endpoint.broken' : 'endpoint.degraded';
    await publish(
      type,
      { monitorId: apiId, apiId, failingFields: failing, ...(findings.length > 0 ? { detail: findings.join('; ') } : {}) },
      { apiId, health: state, previous: previous ?? null, failingFields: failing, findings, since, revision: config.revision },
    );
  }

  /** The refresh's result, a thrown error turned into a failed result. */
  function refreshOrError(config: ApiConfig, values: MonitorTarget['values']): Promise<RefreshResult> {
    return options.refresh(config, values).catch((error: unknown): RefreshResult => ({
      ok: false,
      error: isPagejsonError(error) ? `${error.code}: ${error.message}` : String(error),
    }));
  }

  /** Tell the listener about a run; a listener's failure is not the run's. */
  function notifyRun(outcome: MonitorRunOutcome): void {
    try {
      options.onEvent?.({ kind: 'monitor', outcome });
    } catch {
      // a listener's failure is not the run's
    }
  }

  /** `previous`: the run state when the caller has just read it (a scheduled slot), else read here. */
  async function runTarget(target: MonitorTarget, slot: string | null, known?: MonitorRunState): Promise<MonitorRunOutcome> {
    const { config, values, monitorId } = target;
    const apiId = config.apiId;
    const previous = known ?? (await store.getRun(monitorId));
    const runAt = new Date(options.now()).toISOString();
    const result = await refreshOrError(config, values);
    // The run's own health observation (made inside the retrieval path) is recorded before the run is.
    await Promise.allSettled([...observing]);
    const state: MonitorRunState = {
      monitorId,
      apiId,
      lastSlot: slot ?? previous?.lastSlot ?? null,
      lastRunAt: runAt,
      lastOutcome: 'ok',
      lastError: null,
      ...(previous?.lastData !== undefined ? { lastData: previous.lastData, lastDataAt: previous.lastDataAt ?? null } : {}),
    };
    const outcome: MonitorRunOutcome = { monitorId, apiId, slot, outcome: 'ok', changed: false };
    if (!result.ok) {
      state.lastOutcome = outcome.outcome =
        result.health === 'broken' ? 'broken' : result.error.startsWith('SOURCE_BLOCKED') ? 'blocked' : 'error';
      state.lastError = outcome.error = result.error;
    } else if (result.health !== 'healthy') {
      // Partial data is not compared: a degraded page would read as items removed.
      state.lastOutcome = outcome.outcome = result.health;
    } else {
      const before = previous?.lastData;
      state.lastData = result.data;
      state.lastDataAt = runAt;
      if (before !== undefined) {
        const diff = diffData(before, result.data);
        if (!isEmptyChange(diff)) {
          outcome.changed = true;
          outcome.diff = diff;
          // Recorded before it is published: a crash in between loses no change (the next run compares anew).
          await store.putRun(state);
          await publish(
            'data.changed',
            { monitorId, apiId, variables: values, diff },
            {
              apiId,
              monitor: monitorId,
              variables: values,
              url: resolveSourceUrl(config, values),
              revision: config.revision,
              previousRunAt: previous?.lastDataAt ?? null,
              runAt,
              changes: diff,
              data: result.data,
            },
          );
        }
      }
    }
    await store.putRun(state);
    notifyRun(outcome);
    return outcome;
  }

  async function runSlot(target: MonitorTarget): Promise<MonitorRunOutcome | undefined> {
    const at = options.now();
    const slot = target.schedule.current(at);
    if (!slot || handled.get(target.monitorId) === slot.id) return undefined;
    const lastRun = await store.getRun(target.monitorId);
    if (lastRun?.lastSlot === slot.id) {
      handled.set(target.monitorId, slot.id);
      return undefined;
    }
    const lease = `${target.monitorId}@${slot.id}`;
    // Not taken: another daemon runs it now (or ran it); if that daemon dies, its lease expires and a later
    // tick here takes the slot over.
    if (!(await store.acquireLease(lease, options.owner, options.leaseMs))) return undefined;
    const outcome = await runTarget(target, slot.id, lastRun);
    handled.set(target.monitorId, slot.id);
    const keepMs = Math.max(target.schedule.next(at).at - at, 0) + options.leaseMs;
    await store.finishLease(lease, options.owner, keepMs).catch(() => undefined);
    return outcome;
  }

  async function tick(): Promise<MonitorRunOutcome[]> {
    const due = targets();
    const outcomes: MonitorRunOutcome[] = [];
    const limit = Math.max(1, options.concurrency ?? 4);
    let next = 0;
    const worker = async () => {
      while (next < due.length && !stopped) {
        const target = due[next++]!;
        const outcome = await runSlot(target).catch(() => undefined);
        if (outcome) outcomes.push(outcome);
      }
    };
    await Promise.all(Array.from({ length: Math.min(limit, due.length) }, worker));
    return outcomes;
  }

  function schedule(): void {
    if (stopped) return;
    if (timer) clearTimeout(timer);
    const at = options.now();
    const all = targets();
    // Sleep until the earliest next slot; slots due but held by another daemon are looked at again soon.
    let wait = MAX_SLEEP_MS;
    for (const target of all) {
      const current = target.schedule.current(at);
      if (current && handled.get(target.monitorId) !== current.id) wait = Math.min(wait, Math.max(1_000, options.leaseMs / 4));
      wait = Math.min(wait, target.schedule.next(at).at - at);
    }
    timer = setTimeout(() => void runTick(), Math.max(50, wait));
    timer.unref();
  }

  function runTick(): Promise<MonitorRunOutcome[]> {
    ticking ??= tick().finally(() => {
      ticking = undefined;
      schedule();
    });
    return ticking;
  }

  return {
    tick: runTick,
    async runNow(apiId) {
      const mine = targets().filter((target) => target.config.apiId === apiId);
      const outcomes: MonitorRunOutcome[] = [];
      for (const target of mine) outcomes.push(await runTarget(target, null));
      return outcomes;
    },
    observeHealth(config, state, failing, findings) {
      const work = observe(config, state, failing, findings);
      observing.add(work);
      void work.catch(() => undefined).finally(() => observing.delete(work));
      return work;
    },
    async healProposed(event) {
      // One proposal per revision across daemons: each daemon's repair may reach the same one.
      if (!(await store.acquireLease(`heal:${event.apiId}@${event.revision}`, options.owner, 86_400_000))) return;
      await store.finishLease(`heal:${event.apiId}@${event.revision}`, options.owner, 86_400_000);
      await publish(
        'heal.proposed',
        {
          monitorId: event.apiId,
          apiId: event.apiId,
          detail: `${event.file} (${event.recovery.found}/${event.recovery.total} values found)`,
        },
        { ...event },
      );
    },
    async list() {
      const at = options.now();
      const runs = new Map((await store.listRuns()).map((run) => [run.monitorId, run]));
      return targets().map((target) => {
        const run = runs.get(target.monitorId);
        return {
          monitorId: target.monitorId,
          apiId: target.config.apiId,
          every: target.schedule.every,
          variables: target.values,
          nextRunAt: new Date(target.schedule.next(at).at).toISOString(),
          lastRunAt: run?.lastRunAt ?? null,
          lastOutcome: run?.lastOutcome ?? null,
          lastError: run?.lastError ?? null,
        };
      });
    },
    history: (apiId, limit) => store.history(apiId, limit),
    start() {
      stopped = false;
      void runTick();
    },
    wake() {
      if (timer && !stopped) schedule();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await ticking?.catch(() => undefined);
      await Promise.allSettled([...observing]);
    },
  };
}
