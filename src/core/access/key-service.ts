import { LRUCache } from 'lru-cache';
import { API_ID_PATTERN } from '../config/index.js';
import { PagejsonError, wireText } from '../shared/index.js';
import { digestKey, generateApiKey, hasValidChecksum, KEY_ID_PATTERN, newKeyId } from './keys.js';
import type { ApiKeyRecord, StateStore, UsageRow } from '../state/index.js';

/**
 * API key operations over a StateStore (docs/wire.md and docs/security.md). The plaintext key exists only in the
 * value `createKey`/`rotateKey` return, once; the store keeps its SHA-256 digest.
 */
export const DEFAULT_ACCOUNT = 'default';
export const ACCOUNT_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$/;
/** lastUsedAt is coalesced: at most one store write per key per interval, never one per request. */
export const LAST_USED_INTERVAL_MS = 60_000;

export interface CreateKeyInput {
  account?: string | undefined;
  label?: string | null | undefined;
  /** apiIds the key may call; null or empty = all. */
  scope?: string[] | null | undefined;
}

/** What `keys create --json` prints: the only time the key is shown. */
export interface CreatedKey {
  id: string;
  key: string;
  account: string;
  label: string | null;
  scope: string[] | null;
  createdAt: string;
}

export type KeyDisplayStatus = 'active' | 'revoked' | 'expired';

/** A key as lists show it: never the key nor its digest. */
export interface KeyView {
  id: string;
  account: string;
  label: string | null;
  scope: string[] | null;
  status: KeyDisplayStatus;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  usage: { requests: number; errors: number; cacheHits: number; milliCredits: number };
  /** apiIds this key has called (its associated endpoints). */
  endpoints: string[];
}

export interface RotatedKey {
  key: CreatedKey;
  previous: KeyView;
}

export interface KeyServiceOptions {
  /** Initial balance of an account created by its first key. */
  freeMilliCredits: number;
  now?: () => Date;
}

export function checkAccountName(account: string): string {
  if (!ACCOUNT_PATTERN.test(account)) {
    throw new PagejsonError('USAGE', `invalid account name "${account}"`, {
      hint: 'use 1-64 letters, digits, _, ., @ or -, starting with a letter or digit',
    });
  }
  return account;
}

function checkScope(scope: string[] | null | undefined): string[] | null {
  if (!scope || scope.length === 0) return null;
  for (const apiId of scope) {
    if (!API_ID_PATTERN.test(apiId))
      throw new PagejsonError('USAGE', `invalid apiId in scope: "${apiId}"`, {
        hint: 'list apiIds separated by commas, e.g. --scope books,jobs',
      });
  }
  return [...new Set(scope)];
}

export function keyStatus(record: ApiKeyRecord, now: Date | number): KeyDisplayStatus {
  if (record.status === 'revoked') return 'revoked';
  if (record.expiresAt && Date.parse(record.expiresAt) <= (typeof now === 'number' ? now : now.getTime())) return 'expired';
  return 'active';
}

async function uniqueKeyId(store: StateStore): Promise<string> {
  for (;;) {
    const id = newKeyId();
    if (!(await store.getKey(id))) return id;
  }
}

export async function createKey(store: StateStore, input: CreateKeyInput, options: KeyServiceOptions): Promise<CreatedKey> {
  const now = options.now ?? (() => new Date());
  const account = checkAccountName(input.account ?? DEFAULT_ACCOUNT);
  const scope = checkScope(input.scope);
  const label = input.label ? input.label : null;
  // The account exists from its first key on, with the free credits, so `credits` shows it at once.
  await store.ensureAccount(account, options.freeMilliCredits);
  const key = generateApiKey();
  const record: ApiKeyRecord = {
    id: await uniqueKeyId(store),
    digest: digestKey(key),
    account,
    label,
    scope,
    status: 'active',
    createdAt: now().toISOString(),
    lastUsedAt: null,
    expiresAt: null,
  };
  await store.addKey(record);
  return { id: record.id, key, account, label, scope, createdAt: record.createdAt };
}

export function keyView(record: ApiKeyRecord, usage: UsageRow[], now: Date): KeyView {
  const mine = usage.filter((row) => row.keyId === record.id);
  const total = { requests: 0, errors: 0, cacheHits: 0, milliCredits: 0 };
  for (const row of mine) {
    total.requests += row.requests;
    total.errors += row.errors;
    total.cacheHits += row.cacheHits;
    total.milliCredits += row.milliCredits;
  }
  return {
    id: record.id,
    account: record.account,
    label: record.label,
    scope: record.scope,
    status: keyStatus(record, now),
    createdAt: record.createdAt,
    lastUsedAt: record.lastUsedAt,
    expiresAt: record.expiresAt,
    usage: total,
    endpoints: [...new Set(mine.map((row) => row.apiId))].sort(),
  };
}

export async function listKeys(store: StateStore, options: { now?: () => Date } = {}): Promise<KeyView[]> {
  const now = (options.now ?? (() => new Date()))();
  const [records, usage] = await Promise.all([store.listKeys(), store.usage({})]);
  return records.map((record) => keyView(record, usage, now));
}

async function existingKey(store: StateStore, id: string): Promise<ApiKeyRecord> {
  // An id from outside is checked against its pattern before any lookup: `__proto__` never reaches a store.
  if (typeof id !== 'string' || !KEY_ID_PATTERN.test(id)) {
    throw new PagejsonError('KEY_NOT_FOUND', `no key with id ${JSON.stringify(String(id)).slice(0, 80)}`, {
      context: { id: String(id).slice(0, 80) },
      hint: 'key ids look like k_3f9a2c1b: run `pagejson keys list` to see them',
    });
  }
  const record = await store.getKey(id);
  if (!record)
    throw new PagejsonError('KEY_NOT_FOUND', `no key with id ${id}`, { context: { id }, hint: 'run `pagejson keys list` to see key ids' });
  return record;
}

export async function revokeKey(store: StateStore, id: string, options: { now?: () => Date } = {}): Promise<KeyView> {
  const now = (options.now ?? (() => new Date()))();
  await existingKey(store, id);
  const updated = await store.updateKey(id, { status: 'revoked' });
  return keyView(updated!, await store.usage({ keyId: id }), now);
}

/**
 * A new key for the same account, label and scope; the old one keeps working for `graceMs` (revoked at once
 * when 0), so deployments can switch over without downtime.
 */
export async function rotateKey(store: StateStore, id: string, graceMs: number, options: KeyServiceOptions): Promise<RotatedKey> {
  const now = options.now ?? (() => new Date());
  const old = await existingKey(store, id);
  const oldStatus = keyStatus(old, now());
  if (oldStatus !== 'active') {
    throw new PagejsonError('KEY_INVALID', `key ${id} is ${oldStatus} and cannot be rotated`, {
      context: { id },
      hint: 'create a new key with `pagejson keys create`',
    });
  }
  if (!Number.isFinite(graceMs) || graceMs < 0)
    throw new PagejsonError('USAGE', 'the grace period must be 0 or more', { hint: 'e.g. --grace 24h, --grace 30m, --grace 0' });
  const created = await createKey(store, { account: old.account, label: old.label, scope: old.scope }, options);
  const at = now();
  const patch: Partial<ApiKeyRecord> =
    graceMs === 0 ? { status: 'revoked', expiresAt: at.toISOString() } : { expiresAt: new Date(at.getTime() + graceMs).toISOString() };
  const updated = await store.updateKey(id, patch);
  return { key: created, previous: keyView(updated!, await store.usage({ keyId: id }), at) };
}

export type KeyVerdict =
  | { ok: true; record: ApiKeyRecord }
  | { ok: false; reason: 'missing' | 'invalid'; message: string }
  /** The key is valid but its scope excludes this apiId: the caller answers `no data`. */
  | { ok: false; reason: 'scope'; record: ApiKeyRecord; message: string };

/** The wire's messages (src/core/shared/error-table.ts). */
export const MISSING_KEY_MESSAGE = wireText('KEY_MISSING');
export const INVALID_KEY_MESSAGE = wireText('KEY_INVALID');

const lastTouched = new WeakMap<StateStore, Map<string, number>>();

/**
 * Keys seen recently, with their digest: a cache hit is otherwise dominated by two SHA-256s and a base62
 * conversion per request. Only keys that passed the checksum enter, and the map is bounded.
 */
const checkedKeys = new LRUCache<string, string>({ max: 10_000 });

function digestOfCheckedKey(key: string): string | undefined {
  const known = checkedKeys.get(key);
  if (known) return known;
  if (!hasValidChecksum(key)) return undefined;
  const digest = digestKey(key);
  checkedKeys.set(key, digest);
  return digest;
}

/**
 * Checks an `apikey` header value for one apiId. A bad checksum is refused without a store lookup; unknown,
 * revoked and expired keys are all `invalid key` (no hint to a guesser which one). Records lastUsedAt at most
 * once per LAST_USED_INTERVAL_MS per key, without making the caller wait for that write.
 */
export async function verifyApiKey(
  store: StateStore,
  key: string | undefined,
  apiId: string,
  now: Date | number = Date.now(),
): Promise<KeyVerdict> {
  if (!key) return { ok: false, reason: 'missing', message: MISSING_KEY_MESSAGE };
  const digest = digestOfCheckedKey(key);
  if (!digest) return { ok: false, reason: 'invalid', message: INVALID_KEY_MESSAGE };
  const record = await store.findKeyByDigest(digest);
  // A number, not a Date, on the hit path: one object less per request.
  const at = typeof now === 'number' ? now : now.getTime();
  if (!record || keyStatus(record, at) !== 'active') return { ok: false, reason: 'invalid', message: INVALID_KEY_MESSAGE };
  touchLastUsed(store, record, at);
  if (record.scope && !record.scope.includes(apiId)) return { ok: false, reason: 'scope', record, message: wireText('NO_DATA') };
  return { ok: true, record };
}

/**
 * The same verdict for a key named by its id: a job's items (src/core/jobs) act for the key that started the
 * job, whose text is never kept. A key revoked or expired since is `invalid`, like its text would be.
 */
export async function verifyKeyId(store: StateStore, id: string, apiId: string, now: Date | number = Date.now()): Promise<KeyVerdict> {
  const record = await store.getKey(id);
  const at = typeof now === 'number' ? now : now.getTime();
  if (!record || keyStatus(record, at) !== 'active') return { ok: false, reason: 'invalid', message: INVALID_KEY_MESSAGE };
  touchLastUsed(store, record, at);
  if (record.scope && !record.scope.includes(apiId)) return { ok: false, reason: 'scope', record, message: wireText('NO_DATA') };
  return { ok: true, record };
}

function touchLastUsed(store: StateStore, record: ApiKeyRecord, at: number): void {
  let touched = lastTouched.get(store);
  if (!touched) lastTouched.set(store, (touched = new Map()));
  // The common case first, without parsing the record's timestamp: this daemon touched the key recently.
  const mine = touched.get(record.id);
  if (mine !== undefined && at - mine < LAST_USED_INTERVAL_MS) return;
  const previous = Math.max(mine ?? 0, record.lastUsedAt ? Date.parse(record.lastUsedAt) : 0);
  if (at - previous < LAST_USED_INTERVAL_MS) {
    touched.set(record.id, previous);
    return;
  }
  touched.set(record.id, at);
  record.lastUsedAt = new Date(at).toISOString();
  void store.updateKey(record.id, { lastUsedAt: record.lastUsedAt }).catch(() => undefined);
}
