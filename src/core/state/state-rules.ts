import type { ApiKeyRecord, UsageQuery, UsageRow } from './types.js';

/** Rules every StateStore driver shares, so that lowdb and Redis answer the contract suite identically. */

/** Amounts are non-negative integer milli-credits; anything else is a bug in the caller. */
export function assertAmount(milliCredits: number): void {
  if (!Number.isSafeInteger(milliCredits) || milliCredits < 0) {
    throw new RangeError(`amount must be a non-negative integer of milli-credits, got ${milliCredits}`);
  }
}

/** Usage days are UTC calendar days, `YYYY-MM-DD`. The last day is remembered: every request records usage. */
const DAY_MS = 86_400_000;
let lastDay = { start: 0, end: 0, text: '' };
export function dayOf(at: Date): string {
  const time = at.getTime();
  if (time >= lastDay.start && time < lastDay.end) return lastDay.text;
  const start = Math.floor(time / DAY_MS) * DAY_MS;
  lastDay = { start, end: start + DAY_MS, text: new Date(start).toISOString().slice(0, 10) };
  return lastDay.text;
}

/** Hourly usage is kept this long (8 days: a week of hours plus today), daily usage for a year and more. */
export const HOURLY_USAGE_RETENTION_HOURS = 192;
export const HOUR_MS = 3_600_000;

/** Usage hours are UTC, `YYYY-MM-DDTHH:00Z` (sorts as text). The last hour is remembered, as the last day is. */
let lastHour = { start: 0, end: 0, text: '' };
export function hourOf(at: Date): string {
  const time = at.getTime();
  if (time >= lastHour.start && time < lastHour.end) return lastHour.text;
  const start = Math.floor(time / HOUR_MS) * HOUR_MS;
  lastHour = { start, end: start + HOUR_MS, text: `${new Date(start).toISOString().slice(0, 13)}:00Z` };
  return lastHour.text;
}

/**
 * First hour included by "the last N hours, this one included". Formatted apart from hourOf's memo, which
 * would otherwise flip between this hour and the cutoff's on every event (two ISO strings per request).
 */
export function hourCutoff(now: Date, hours: number): string {
  const span = Math.max(1, Math.floor(hours));
  const start = Math.floor(now.getTime() / HOUR_MS) * HOUR_MS - (span - 1) * HOUR_MS;
  return `${new Date(start).toISOString().slice(0, 13)}:00Z`;
}

/**
 * The oldest hour the hourly usage keeps, worked out once per hour of the clock (not per event): an event
 * before it counts by the day only, and the embedded store prunes rows before it when it moves.
 */
export function oldestHourKeeper(now: () => Date): () => string {
  let memo = { hour: '', oldest: '' };
  return () => {
    const at = now();
    const hour = hourOf(at);
    if (hour !== memo.hour) memo = { hour, oldest: hourCutoff(at, HOURLY_USAGE_RETENTION_HOURS) };
    return memo.oldest;
  };
}

/** The first bucket (day, or hour with `unit: 'hour'`) a usage query includes; undefined: all kept. */
export function usageQueryCutoff(query: UsageQuery, now: Date): string | undefined {
  if (query.unit === 'hour') return hourCutoff(now, Math.min(query.hours ?? HOURLY_USAGE_RETENTION_HOURS, HOURLY_USAGE_RETENTION_HOURS));
  return query.days === undefined ? undefined : usageCutoff(now, query.days);
}

/** First day included by "the last N days, today included". */
export function usageCutoff(now: Date, days: number): string {
  const span = Math.max(1, Math.floor(days));
  return dayOf(new Date(now.getTime() - (span - 1) * 86_400_000));
}

export function cloneKey(record: ApiKeyRecord): ApiKeyRecord {
  return { ...record, scope: record.scope ? [...record.scope] : null };
}

/** How many requests an event stands for: a positive integer, else 1 (events from outside the buffer carry none). */
export function eventCount(event: { count?: number }): number {
  const count = event.count;
  return typeof count === 'number' && Number.isSafeInteger(count) && count > 0 ? count : 1;
}

/** Token counts of an event as non-negative integers (a model may report nothing, or garbage). */
export function eventTokens(event: { promptTokens?: number; completionTokens?: number }): {
  promptTokens: number;
  completionTokens: number;
} {
  const clean = (n: number | undefined): number => (typeof n === 'number' && Number.isFinite(n) && n > 0 ? Math.floor(n) : 0);
  return { promptTokens: clean(event.promptTokens), completionTokens: clean(event.completionTokens) };
}

/** Newest day (hour) first, then apiId, then keyId (null last): a stable order for tables and tests. */
export function groupUsage(rows: UsageRow[]): UsageRow[] {
  return (
    rows
      // Rows written before token counting have no token fields: they read as 0.
      .map((row) => ({ ...row, promptTokens: row.promptTokens ?? 0, completionTokens: row.completionTokens ?? 0 }))
      .sort(
        (a, b) =>
          (b.hour ?? b.day).localeCompare(a.hour ?? a.day) ||
          a.apiId.localeCompare(b.apiId) ||
          (a.keyId ?? '\uffff').localeCompare(b.keyId ?? '\uffff'),
      )
  );
}
