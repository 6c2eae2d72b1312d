import { API_ID_PATTERN } from '../config/index.js';
import type { EndpointObservation, EndpointRuntimeStatus, FieldBaseline, HealthBaseline } from './types.js';

/** The endpoint's status once an observation is recorded in it (the same for the daemon and the CLI). */
export function withObservation(previous: EndpointRuntimeStatus | undefined, observation: EndpointObservation): EndpointRuntimeStatus {
  const base: EndpointRuntimeStatus = previous
    ? { ...previous }
    : { apiId: observation.apiId, lastFetchAt: null, lastError: null, lastErrorAt: null };
  if (observation.health === undefined || observation.error !== undefined) {
    base.lastError = observation.error ?? null;
    base.lastErrorAt = observation.at;
  } else {
    base.lastFetchAt = observation.at;
    base.lastError = null;
    base.lastErrorAt = null;
  }
  if (observation.health !== undefined) {
    base.healthSince = previous?.health === observation.health && previous.healthSince ? previous.healthSince : observation.at;
    base.health = observation.health;
    base.failingFields = observation.failingFields ?? [];
    if (observation.findings && observation.findings.length > 0) base.findings = observation.findings;
    else delete base.findings;
  }
  if (observation.baseline) base.baseline = observation.baseline;
  return base;
}

const HEALTH_STATES = new Set(['healthy', 'degraded', 'broken']);
const MAX_OBSERVATIONS = 1_000;
const MAX_LIST = 2_000;
const MAX_TEXT = 2_000;
const MAX_SAMPLE_BYTES = 64 * 1024;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const strings = (value: unknown, name: string): string[] => {
  if (!Array.isArray(value) || value.length > MAX_LIST || value.some((item) => typeof item !== 'string' || item.length > MAX_TEXT))
    throw new RangeError(`${name} must be a list of at most ${MAX_LIST} short strings`);
  return value as string[];
};

/** A baseline as it arrives from another process: its shape checked, its sizes bounded. */
function baselineOf(value: unknown): HealthBaseline {
  if (!isRecord(value) || value.version !== 1 || !Array.isArray(value.fields) || value.fields.length > MAX_LIST)
    throw new RangeError('baseline must be {version: 1, fields: [...]}');
  for (const field of value.fields as unknown[]) {
    const entry = field as FieldBaseline;
    const numbers = [
      entry?.seen,
      entry?.filled,
      ...(Array.isArray(entry?.counts) ? entry.counts : []),
      ...(Array.isArray(entry?.lengths) ? entry.lengths : []),
      ...(Array.isArray(entry?.pages) ? entry.pages : []),
    ];
    if (
      !isRecord(field) ||
      typeof entry.path !== 'string' ||
      entry.path.length > MAX_TEXT ||
      typeof entry.type !== 'string' ||
      numbers.some((number) => typeof number !== 'number' || !Number.isFinite(number)) ||
      (entry.counts !== undefined && (!Array.isArray(entry.counts) || entry.counts.length > 10)) ||
      (entry.header !== undefined && (typeof entry.header !== 'string' || entry.header.length > MAX_TEXT)) ||
      (entry.lengths !== undefined && (!Array.isArray(entry.lengths) || entry.lengths.length > 10)) ||
      (entry.pages !== undefined && (!Array.isArray(entry.pages) || entry.pages.length > 10)) ||
      (entry.kinds !== undefined && (!isRecord(entry.kinds) || Object.values(entry.kinds).some((share) => typeof share !== 'number')))
    )
      throw new RangeError('a baseline field must be {path, type, seen, filled, counts?, kinds?}');
  }
  if (value.sample !== undefined && (!isRecord(value.sample) || JSON.stringify(value.sample).length > MAX_SAMPLE_BYTES))
    throw new RangeError(`a baseline's sample must be an object of at most ${MAX_SAMPLE_BYTES} bytes`);
  return value as unknown as HealthBaseline;
}

/** Observations sent to the daemon's admin socket (`pagejson run`, `check`), checked before they reach the store. */
export function parseObservations(value: unknown): EndpointObservation[] {
  if (!Array.isArray(value) || value.length > MAX_OBSERVATIONS)
    throw new RangeError(`observations must be a list of at most ${MAX_OBSERVATIONS}`);
  return value.map((item: unknown) => {
    if (
      !isRecord(item) ||
      typeof item.apiId !== 'string' ||
      !API_ID_PATTERN.test(item.apiId) ||
      typeof item.at !== 'string' ||
      Number.isNaN(Date.parse(item.at))
    )
      throw new RangeError('an observation needs an apiId and an ISO time `at`');
    if (item.health !== undefined && !HEALTH_STATES.has(item.health as string))
      throw new RangeError('health must be healthy, degraded or broken');
    if (item.error !== undefined && (typeof item.error !== 'string' || item.error.length > MAX_TEXT))
      throw new RangeError('error must be a short string');
    return {
      apiId: item.apiId,
      at: new Date(item.at).toISOString(),
      ...(item.health !== undefined ? { health: item.health as 'healthy' | 'degraded' | 'broken' } : {}),
      ...(item.failingFields !== undefined ? { failingFields: strings(item.failingFields, 'failingFields') } : {}),
      ...(item.findings !== undefined ? { findings: strings(item.findings, 'findings') } : {}),
      ...(item.baseline !== undefined ? { baseline: baselineOf(item.baseline) } : {}),
      ...(item.error !== undefined ? { error: item.error as string } : {}),
    };
  });
}
