import type { ApiKeyRecord, UsageRow } from './types.js';

/** Rules every StateStore driver shares, so that lowdb and Redis answer the contract suite identically. */

/** Amounts are non-negative integer milli-credits; anything else is a bug in the caller. */
export function assertAmount(milliCredits: number): void {
  if (!Number.isSafeInteger(milliCredits) || milliCredits < 0) {
    throw new RangeError(`amount must be a non-negative integer of milli-credits, got ${milliCredits}`);
  }
}

/** Usage days are UTC calendar days, `YYYY-MM-DD`. */
export function dayOf(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** First day included by "the last N days, today included". */
export function usageCutoff(now: Date, days: number): string {
  const span = Math.max(1, Math.floor(days));
  return dayOf(new Date(now.getTime() - (span - 1) * 86_400_000));
}

export function cloneKey(record: ApiKeyRecord): ApiKeyRecord {
  return { ...record, scope: record.scope ? [...record.scope] : null };
}

/** Token counts of an event as non-negative integers (a model may report nothing, or garbage). */
export function eventTokens(event: { promptTokens?: number; completionTokens?: number }): { promptTokens: number; completionTokens: number } {
  const clean = (n: number | undefined): number => (typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : 0);
  return { promptTokens: clean(event.promptTokens), completionTokens: clean(event.completionTokens) };
}

/** Newest day first, then apiId, then keyId (null last): a stable order for tables and tests. */
export function groupUsage(rows: UsageRow[]): UsageRow[] {
  return rows
    // Rows written before token counting have no token fields: they read as 0.
    .map((row) => ({ ...row, promptTokens: row.promptTokens ?? 0, completionTokens: row.completionTokens ?? 0 }))
    .sort((a, b) => b.day.localeCompare(a.day) || a.apiId.localeCompare(b.apiId) || (a.keyId ?? '\uffff').localeCompare(b.keyId ?? '\uffff'));
}
