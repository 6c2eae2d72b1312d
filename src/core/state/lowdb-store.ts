import { existsSync } from 'node:fs';
import { Low } from 'lowdb';
import { PagejsonError } from '../shared/index.js';
import { DurableJsonAdapter } from './lowdb-adapter.js';
import { createStateBatches, type StateBatches } from './state-batches.js';
import { foldingFileOf, journalFileOf, readJournal, StateJournal, type JournalRecord } from './state-journal.js';
import type { Account, ApiKeyRecord, EndpointRuntimeStatus, ReserveResult, StateStore, UsageEvent, UsageQuery, UsageRow } from './types.js';
import {
  assertAmount,
  cloneKey,
  dayOf,
  eventCount,
  eventTokens,
  groupUsage,
  hourOf,
  oldestHourKeeper,
  usageCutoff,
  usageQueryCutoff,
} from './state-rules.js';

/**
 * The embedded StateStore: the state held in memory, kept on disk as a snapshot (`<dataDir>/state.json`,
 * written through lowdb with our durable adapter) plus an append-only journal (`state.json.journal`, see
 * state-journal.ts) of the entries changed since. lowdb is single-process: only one writer (the daemon, or
 * the CLI when no daemon runs) may open the files.
 *
 * Every mutating method applies its change synchronously, before its first await (so two callers can never
 * both spend the last credits), and returns a promise that resolves when the changed entries are appended to
 * the journal (kill -9 safe; the power-cut fsync follows in the background). Appends are group-committed:
 * the changes of one turn of the event loop share one append, and an entry changed many times in a turn is
 * written once. When the journal outgrows the snapshot it is folded into a new snapshot in the background;
 * a clean close folds it too, leaving only `state.json`.
 */
export interface LowdbStoreOptions {
  file: string;
  now?: () => Date;
  /** Called after each append to the journal with its size (tests count appends to prove group commit). */
  onWrite?: (bytes: number) => void;
  /** Usage days older than this are dropped when the store opens, so the file stays small (default 400). */
  usageRetentionDays?: number;
  /** Journal size that starts a fold into the snapshot (at least twice the snapshot's size; default 4 MiB). */
  compactAfterBytes?: number;
}

const COMPACT_AFTER_BYTES = 4 * 1024 * 1024;

function applyRecord(data: StateFile, [section, key, value]: JournalRecord): void {
  const entries = (data[section] ??= dictionary()) as Record<string, object>;
  if (value === null) delete entries[key];
  else entries[key] = value;
}

export interface StateFile {
  version: 1;
  accounts: Record<string, Account>;
  keys: Record<string, ApiKeyRecord>;
  /** One row per (day, apiId, keyId): usage is aggregated, never one row per request. */
  usage: Record<string, UsageRow>;
  /** The same per (hour, apiId, keyId), for the dashboard's charts; kept HOURLY_USAGE_RETENTION_HOURS (absent in older files). */
  usageHours?: Record<string, UsageRow>;
  endpoints: Record<string, EndpointRuntimeStatus>;
  /** Reservations of requests in flight (absent in files written before holds existed). */
  holds?: Record<string, HoldRecord>;
}

interface HoldRecord {
  account: string;
  milliCredits: number;
  at: string;
}

/**
 * Sections are keyed by strings that came from outside at some point (account names, key ids, apiIds): they
 * are null-prototype objects, so no key (`__proto__`, `constructor`) can reach or change Object.prototype.
 */
const dictionary = <T>(from?: Record<string, T>): Record<string, T> => Object.assign(Object.create(null) as Record<string, T>, from);
const emptyState = (): StateFile => ({
  version: 1,
  accounts: dictionary(),
  keys: dictionary(),
  usage: dictionary(),
  endpoints: dictionary(),
});

function checkStateFile(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'does not hold a JSON object';
  const file = value as Record<string, unknown>;
  if (file.version !== 1) return `has an unknown format version (${JSON.stringify(file.version)})`;
  for (const part of ['accounts', 'keys', 'usage', 'endpoints']) {
    const section = file[part];
    if (typeof section !== 'object' || section === null || Array.isArray(section)) return `has no valid "${part}" section`;
  }
  return undefined;
}

function emptyUsageRow(day: string, event: UsageEvent): UsageRow {
  return {
    day,
    apiId: event.apiId,
    keyId: event.keyId,
    requests: 0,
    errors: 0,
    cacheHits: 0,
    milliCredits: 0,
    promptTokens: 0,
    completionTokens: 0,
  };
}

function addEvent(row: UsageRow, event: UsageEvent): void {
  const count = eventCount(event);
  if (event.outcome !== 'MODEL') row.requests += count;
  if (event.outcome === 'ERROR') row.errors += count;
  if (event.outcome === 'HIT' || event.outcome === 'STALE') row.cacheHits += count;
  row.milliCredits += event.milliCredits;
  const tokens = eventTokens(event);
  // Rows from before token counting lack the fields.
  row.promptTokens = (row.promptTokens ?? 0) + tokens.promptTokens;
  row.completionTokens = (row.completionTokens ?? 0) + tokens.completionTokens;
}

export async function createLowdbStore(options: LowdbStoreOptions): Promise<StateStore & { readonly file: string }> {
  const files = await openStateFiles(options.file);
  const { db, adapter, journal } = files;
  const now = options.now ?? (() => new Date());
  const compactAfterBytes = options.compactAfterBytes ?? COMPACT_AFTER_BYTES;
  const batches = createStateBatches({
    journal,
    foldingFile: files.foldingFile,
    valueOf: (section, key) => {
      const entries = db.data[section] as Record<string, object> | undefined;
      return entries && Object.hasOwn(entries, key) ? entries[key]! : null;
    },
    writeSnapshot: async () => {
      await db.write();
      await adapter.durable();
    },
    compactAfterBytes: () => Math.max(compactAfterBytes, 2 * files.snapshotBytes()),
    ...(options.onWrite ? { onWrite: options.onWrite } : {}),
  });
  // Whole-file snapshots stay cheap only while the file is small: old usage days go (journaled with the next batch).
  const oldestKept = usageCutoff(now(), options.usageRetentionDays ?? 400);
  for (const [rowKey, row] of Object.entries(db.data.usage)) {
    if (row.day >= oldestKept) continue;
    delete db.data.usage[rowKey];
    batches.touch('usage', rowKey);
  }
  let closed = false;
  const parts: StoreParts = {
    db,
    batches,
    now,
    mutable() {
      if (closed) throw new PagejsonError('INTERNAL', 'the state store is closed', { hint: 'this is a bug in pagejson; please report it' });
      return db.data;
    },
  };
  // In this order, as the store opens: hourly rows past their retention go, then the keys are indexed.
  const usage = usageMethods(parts);
  const keys = keyMethods(parts);
  // A fold cut short by a crash is finished first.
  if (existsSync(files.foldingFile)) await batches.compact();

  const store = {
    name: 'lowdb',
    file: options.file,
    ...accountMethods(parts),
    ...holdMethods(parts),
    ...keys,
    ...usage,

    async setEndpointStatus(status: EndpointRuntimeStatus): Promise<void> {
      parts.mutable().endpoints[status.apiId] = { ...status };
      await batches.commit('endpoints', status.apiId);
    },

    async listEndpointStatus(): Promise<EndpointRuntimeStatus[]> {
      return Object.values(db.data.endpoints)
        .map((s) => ({ ...s }))
        .sort((a, b) => a.apiId.localeCompare(b.apiId));
    },

    async flush(): Promise<void> {
      batches.writeBatch(false);
      // A fold that failed lost nothing (its journal stays aside and is replayed); the appends are what count.
      if (batches.compacting) await batches.compacting.catch(() => undefined);
      await journal.durable();
      await adapter.durable();
    },

    /** Folds the journal into the snapshot: a cleanly stopped store leaves `state.json` alone. */
    async close(): Promise<void> {
      if (closed) return;
      await store.flush();
      closed = true;
      if (batches.appended) await batches.compact();
      await journal.close();
    },
  };
  return store;
}

interface StateFiles {
  readonly db: Low<StateFile>;
  readonly adapter: DurableJsonAdapter<StateFile>;
  readonly journal: StateJournal;
  readonly foldingFile: string;
  /** The size of the last snapshot written. */
  snapshotBytes(): number;
}

/** The snapshot, then the journal being folded when the last writer stopped (if any), then the journal. */
async function openStateFiles(file: string): Promise<StateFiles> {
  let snapshotBytes = 0;
  const adapter = new DurableJsonAdapter<StateFile>(file, { check: checkStateFile, onWrite: (bytes) => (snapshotBytes = bytes) });
  const db = new Low<StateFile>(adapter, emptyState());
  await db.read();
  db.data = {
    ...db.data,
    accounts: dictionary(db.data.accounts),
    keys: dictionary(db.data.keys),
    usage: dictionary(db.data.usage),
    usageHours: dictionary(db.data.usageHours),
    endpoints: dictionary(db.data.endpoints),
    holds: dictionary(db.data.holds),
  };
  const journalFile = journalFileOf(file);
  const foldingFile = foldingFileOf(file);
  const folding = readJournal(foldingFile);
  const current = readJournal(journalFile);
  for (const record of [...folding.records, ...current.records]) applyRecord(db.data, record);
  return { db, adapter, journal: new StateJournal(journalFile, current), foldingFile, snapshotBytes: () => snapshotBytes };
}

/** What the groups of methods below share. */
interface StoreParts {
  readonly db: Low<StateFile>;
  readonly batches: StateBatches;
  readonly now: () => Date;
  /** The state, to change it; throws once the store is closed. */
  mutable(): StateFile;
}

function accountOf(data: StateFile, account: string): Account {
  const found = data.accounts[account];
  if (!found)
    throw new PagejsonError('ACCOUNT_NOT_FOUND', `no account "${account}"`, {
      context: { account },
      hint: 'accounts are created on first use',
    });
  return found;
}

const holdsOf = (data: StateFile): Record<string, HoldRecord> => (data.holds ??= dictionary());

function accountMethods({
  db,
  batches,
  now,
  mutable,
}: StoreParts): Pick<StateStore, 'ensureAccount' | 'getAccount' | 'reserve' | 'refund' | 'grant'> {
  const { commit } = batches;
  function addToBalance(account: string, milliCredits: number): Promise<number> {
    try {
      assertAmount(milliCredits);
      const found = accountOf(mutable(), account);
      found.balance += milliCredits;
      const balance = found.balance;
      return commit('accounts', account).then(() => balance);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  return {
    async ensureAccount(account: string, initialMilliCredits: number): Promise<Account> {
      const data = mutable();
      const existing = data.accounts[account];
      if (existing) return { ...existing };
      assertAmount(initialMilliCredits);
      const created: Account = { id: account, balance: initialMilliCredits, createdAt: now().toISOString() };
      data.accounts[account] = created;
      await commit('accounts', account);
      return { ...created };
    },

    async getAccount(account: string): Promise<Account | undefined> {
      const found = db.data.accounts[account];
      return found ? { ...found } : undefined;
    },

    reserve(account: string, milliCredits: number): Promise<ReserveResult> {
      try {
        assertAmount(milliCredits);
        const found = accountOf(mutable(), account);
        if (found.balance < milliCredits) return Promise.resolve({ ok: false, balance: found.balance });
        found.balance -= milliCredits;
        const balance = found.balance;
        return commit('accounts', account).then(() => ({ ok: true, balance }));
      } catch (error) {
        return Promise.reject(error);
      }
    },

    refund(account: string, milliCredits: number): Promise<number> {
      return addToBalance(account, milliCredits);
    },

    grant(account: string, milliCredits: number): Promise<number> {
      return addToBalance(account, milliCredits);
    },
  };
}

function holdMethods({ batches, now, mutable }: StoreParts): Pick<StateStore, 'hold' | 'settle' | 'release' | 'releaseOrphanedHolds'> {
  const { commit, touch } = batches;
  // Holds made by this store: every other hold in the file was left by a process that is gone (one writer).
  const ownHolds = new Set<string>();
  return {
    hold(account: string, milliCredits: number, holdId: string): Promise<ReserveResult> {
      try {
        assertAmount(milliCredits);
        const data = mutable();
        const found = accountOf(data, account);
        if (found.balance < milliCredits) return Promise.resolve({ ok: false, balance: found.balance });
        found.balance -= milliCredits;
        holdsOf(data)[holdId] = { account, milliCredits, at: now().toISOString() };
        ownHolds.add(holdId);
        const balance = found.balance;
        return commit('accounts', account, 'holds', holdId).then(() => ({ ok: true, balance }));
      } catch (error) {
        return Promise.reject(error);
      }
    },

    settle(holdId: string, milliCredits?: number): Promise<number | undefined> {
      try {
        const data = mutable();
        ownHolds.delete(holdId);
        if (!Object.hasOwn(holdsOf(data), holdId)) return Promise.resolve(undefined);
        const found = holdsOf(data)[holdId]!;
        delete holdsOf(data)[holdId];
        const back = milliCredits === undefined ? 0 : found.milliCredits - Math.max(0, Math.round(milliCredits));
        const account = data.accounts[found.account];
        if (back <= 0 || !account) return commit('holds', holdId).then(() => undefined);
        account.balance += back;
        const balance = account.balance;
        return commit('holds', holdId, 'accounts', found.account).then(() => balance);
      } catch (error) {
        return Promise.reject(error);
      }
    },

    release(holdId: string): Promise<number | undefined> {
      try {
        const data = mutable();
        ownHolds.delete(holdId);
        const found = Object.hasOwn(holdsOf(data), holdId) ? holdsOf(data)[holdId] : undefined;
        if (!found) return Promise.resolve(undefined);
        delete holdsOf(data)[holdId];
        const account = data.accounts[found.account];
        if (!account) return commit('holds', holdId).then(() => undefined);
        account.balance += found.milliCredits;
        const balance = account.balance;
        return commit('holds', holdId, 'accounts', found.account).then(() => balance);
      } catch (error) {
        return Promise.reject(error);
      }
    },

    async releaseOrphanedHolds(): Promise<{ holds: number; milliCredits: number }> {
      const data = mutable();
      const released = { holds: 0, milliCredits: 0 };
      for (const [holdId, found] of Object.entries(holdsOf(data))) {
        if (ownHolds.has(holdId)) continue;
        delete holdsOf(data)[holdId];
        touch('holds', holdId);
        const account = data.accounts[found.account];
        if (account) account.balance += found.milliCredits;
        touch('accounts', found.account);
        released.holds += 1;
        released.milliCredits += found.milliCredits;
      }
      if (released.holds > 0) await batches.nextBatch();
      return released;
    },
  };
}

function keyMethods({
  db,
  batches,
  mutable,
}: StoreParts): Pick<StateStore, 'addKey' | 'findKeyByDigest' | 'getKey' | 'listKeys' | 'updateKey'> {
  const byDigest = new Map<string, string>();
  for (const key of Object.values(db.data.keys)) byDigest.set(key.digest, key.id);
  return {
    async addKey(record: ApiKeyRecord): Promise<void> {
      const data = mutable();
      if (data.keys[record.id]) throw new PagejsonError('INTERNAL', `key id ${record.id} already exists`);
      if (byDigest.has(record.digest)) throw new PagejsonError('INTERNAL', 'a key with this digest already exists');
      data.keys[record.id] = cloneKey(record);
      byDigest.set(record.digest, record.id);
      await batches.commit('keys', record.id);
    },

    async findKeyByDigest(digest: string): Promise<ApiKeyRecord | undefined> {
      const id = byDigest.get(digest);
      const found = id === undefined ? undefined : db.data.keys[id];
      return found ? cloneKey(found) : undefined;
    },

    async getKey(id: string): Promise<ApiKeyRecord | undefined> {
      const found = db.data.keys[id];
      return found ? cloneKey(found) : undefined;
    },

    async listKeys(): Promise<ApiKeyRecord[]> {
      return Object.values(db.data.keys)
        .map(cloneKey)
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    },

    async updateKey(id: string, patch: Partial<Omit<ApiKeyRecord, 'id' | 'digest'>>): Promise<ApiKeyRecord | undefined> {
      const data = mutable();
      const found = data.keys[id];
      if (!found) return undefined;
      const { id: _id, digest: _digest, ...allowed } = patch as Partial<ApiKeyRecord>;
      Object.assign(found, allowed, allowed.scope ? { scope: [...allowed.scope] } : {});
      const updated = cloneKey(found);
      await batches.commit('keys', id);
      return updated;
    },
  };
}

/** Usage by day and by hour; hourly rows past their retention go at open and whenever the oldest hour kept moves. */
function usageMethods({ db, batches, now, mutable }: StoreParts): Pick<StateStore, 'recordUsage' | 'usage'> {
  const { commit } = batches;
  const usageHours = (data: StateFile): Record<string, UsageRow> => (data.usageHours ??= dictionary());
  const oldestHourKept = oldestHourKeeper(now);
  let prunedBefore = '';
  const pruneHours = (oldest: string): void => {
    prunedBefore = oldest;
    const rows = usageHours(db.data);
    for (const [rowKey, row] of Object.entries(rows)) {
      if (row.hour! >= oldest) continue;
      delete rows[rowKey];
      batches.touch('usageHours', rowKey);
    }
  };
  pruneHours(oldestHourKept());

  return {
    recordUsage(event: UsageEvent): Promise<void> {
      try {
        const data = mutable();
        const day = dayOf(event.at);
        const hour = hourOf(event.at);
        const oldest = oldestHourKept();
        if (oldest !== prunedBefore) pruneHours(oldest);
        const rowKey = `${day}\t${event.apiId}\t${event.keyId ?? ''}`;
        addEvent((data.usage[rowKey] ??= emptyUsageRow(day, event)), event);
        // An event older than the hourly retention (a clock step, a test) counts by the day only.
        if (hour < oldest) return commit('usage', rowKey);
        const hourKey = `${hour}\t${event.apiId}\t${event.keyId ?? ''}`;
        addEvent((usageHours(data)[hourKey] ??= { ...emptyUsageRow(day, event), hour }), event);
        return commit('usage', rowKey, 'usageHours', hourKey);
      } catch (error) {
        return Promise.reject(error);
      }
    },

    async usage(query: UsageQuery): Promise<UsageRow[]> {
      const hourly = query.unit === 'hour';
      const cutoff = usageQueryCutoff(query, now());
      const rows = Object.values(hourly ? usageHours(db.data) : db.data.usage).filter(
        (row) =>
          (query.apiId === undefined || row.apiId === query.apiId) &&
          (query.keyId === undefined || row.keyId === query.keyId) &&
          (cutoff === undefined || (hourly ? row.hour! : row.day) >= cutoff),
      );
      return groupUsage(rows);
    },
  };
}
