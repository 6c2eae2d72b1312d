import { describe, expect, it } from 'vitest';
import { parseObservations, withObservation } from '../../src/core/state/index.js';

/**
 * Observations reach the daemon's admin socket from CLI commands (`run`, `check`): read as outside input
 * (docs/security.md), their shape checked and their sizes bounded before anything reaches the store.
 */
const ok = { apiId: 'books', at: '2026-11-25T10:00:00.000Z', health: 'healthy', failingFields: [], findings: [] };
const baseline = { version: 1, fields: [{ path: 'books', type: 'array', seen: 1, filled: 1, counts: [4] }] };

describe('observations from the CLI', () => {
  it('takes a well-formed observation and records it over the previous status', () => {
    const [observation] = parseObservations([{ ...ok, baseline }]);
    const status = withObservation(
      { apiId: 'books', lastFetchAt: null, lastError: 'x', lastErrorAt: 'y', health: 'healthy', healthSince: 'then' },
      observation!,
    );
    expect(status).toMatchObject({ lastFetchAt: ok.at, lastError: null, health: 'healthy', healthSince: 'then', baseline });
    const degraded = withObservation(status, { ...observation!, health: 'degraded', findings: ['books: empty'], failingFields: ['books'] });
    expect(degraded).toMatchObject({ health: 'degraded', healthSince: ok.at, findings: ['books: empty'] });
    // A failed fetch keeps the last good fetch and the health.
    expect(withObservation(degraded, { apiId: 'books', at: '2026-11-25T11:00:00.000Z', error: 'FETCH_TIMEOUT' })).toMatchObject({
      lastFetchAt: ok.at,
      lastError: 'FETCH_TIMEOUT',
      health: 'degraded',
    });
  });

  it('refuses what is not one: an apiId that is no apiId, a health state, numbers that are not, sizes past bounds', () => {
    const refused = [
      'not a list',
      Array.from({ length: 1_001 }, () => ok),
      [{ ...ok, apiId: '__proto__' }],
      [{ ...ok, apiId: '../etc' }],
      [{ ...ok, at: 'yesterday' }],
      [{ ...ok, health: 'fine' }],
      [{ ...ok, findings: ['x'.repeat(3_000)] }],
      [{ ...ok, failingFields: Array.from({ length: 2_001 }, () => 'a') }],
      [{ ...ok, baseline: { version: 2, fields: [] } }],
      [{ ...ok, baseline: { version: 1, fields: [{ path: 'a', type: 'string', seen: 'many', filled: 1 }] } }],
      [{ ...ok, baseline: { version: 1, fields: [{ path: 'a', type: 'string', seen: 1, filled: 1, counts: Array(11).fill(1) }] } }],
      [{ ...ok, baseline: { ...baseline, sample: { text: 'x'.repeat(70_000) } } }],
    ];
    for (const body of refused) expect(() => parseObservations(body), JSON.stringify(body).slice(0, 80)).toThrow(RangeError);
  });
});
