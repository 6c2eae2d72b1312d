import { dayOf, hourOf, type UsageRow } from '../state/index.js';

/**
 * Usage rows as the dashboard draws them: one point per hour or day (empty buckets included, so a chart's
 * time axis is even), and totals that tell retrieval credits (rows of a key) from generation credits (the
 * keyless rows a generation's charge writes, see StateOperations.charge).
 */
export interface UsagePoint {
  /** Bucket start, ISO 8601. */
  at: string;
  requests: number;
  errors: number;
  cacheHits: number;
  retrievalMilliCredits: number;
  generationMilliCredits: number;
  /** Model tokens of every call (retrieval fills and generations, retries and format fallbacks included). */
  promptTokens: number;
  completionTokens: number;
}

export interface UsageTotals {
  requests: number;
  errors: number;
  cacheHits: number;
  retrievalMilliCredits: number;
  generationMilliCredits: number;
  promptTokens: number;
  completionTokens: number;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

export function emptyTotals(): UsageTotals {
  return {
    requests: 0,
    errors: 0,
    cacheHits: 0,
    retrievalMilliCredits: 0,
    generationMilliCredits: 0,
    promptTokens: 0,
    completionTokens: 0,
  };
}

export function addRow(totals: UsageTotals, row: UsageRow): UsageTotals {
  totals.requests += row.requests;
  totals.errors += row.errors;
  totals.cacheHits += row.cacheHits;
  totals.promptTokens += row.promptTokens;
  totals.completionTokens += row.completionTokens;
  if (row.keyId === null) totals.generationMilliCredits += row.milliCredits;
  else totals.retrievalMilliCredits += row.milliCredits;
  return totals;
}

/** Totals per endpoint or per key (`pick` gives the id; rows it gives none are left out). */
export function totalsBy(rows: UsageRow[], pick: (row: UsageRow) => string | null): Map<string, UsageTotals> {
  const found = new Map<string, UsageTotals>();
  for (const row of rows) {
    const id = pick(row);
    if (id === null) continue;
    let totals = found.get(id);
    if (!totals) found.set(id, (totals = emptyTotals()));
    addRow(totals, row);
  }
  return found;
}

/** `count` buckets ending with the one holding `now`, oldest first. Rows outside them are left out. */
export function usageSeries(rows: UsageRow[], unit: 'hour' | 'day', count: number, now: Date): UsagePoint[] {
  const step = unit === 'hour' ? HOUR_MS : DAY_MS;
  const last = Math.floor(now.getTime() / step) * step;
  const points = new Map<string, UsagePoint & UsageTotals>();
  const order: string[] = [];
  for (let index = count - 1; index >= 0; index -= 1) {
    const start = new Date(last - index * step);
    const name = unit === 'hour' ? hourOf(start) : dayOf(start);
    order.push(name);
    points.set(name, { at: start.toISOString(), ...emptyTotals() });
  }
  for (const row of rows) {
    const point = points.get(unit === 'hour' ? (row.hour ?? '') : row.day);
    if (point) addRow(point, row);
  }
  return order.map((name) => points.get(name)!);
}
