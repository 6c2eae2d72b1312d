import { describe, expect, it } from 'vitest';
import { ApiConfigSchema } from '../../src/core/config/schema.js';
import type { Health } from '../../src/core/health/index.js';
import { createEndpointStatus, LEARN_EVERY_MS } from '../../src/core/retrieval/endpoint-status.js';
import type { RetrievalDeps } from '../../src/core/retrieval/types.js';
import type { EndpointRuntimeStatus } from '../../src/core/state/index.js';

/**
 * A daemon's loads teach the endpoint's baseline (issue 33 item 2), at most once a minute per endpoint so that
 * a busy uncached endpoint does not pay for reading every answer into it (docs/health.md). The clock is the
 * retrieval's injected one.
 */
const config = ApiConfigSchema.parse({
  apiId: 'planets',
  url: 'https://x.example/planets',
  structure: [{ name: 'rows', type: 'array', selector: 'tr', fields: [{ name: 'name', type: 'string', selector: 'td' }] }],
});
const healthy: Health = { state: 'healthy', fields: [], failing: [], findings: [] };
const rows = (count: number) => ({ rows: Array.from({ length: count }, (_, index) => ({ name: `planet ${index}` })) });

function statusWithClock() {
  let now = Date.parse('2026-11-25T10:00:00Z');
  const written: EndpointRuntimeStatus[] = [];
  // Only the parts the endpoint status uses: the store's status writes and the clock.
  const deps = {
    store: { setEndpointStatus: async (status: EndpointRuntimeStatus) => void written.push(status) },
    now: () => new Date(now),
  } as unknown as RetrievalDeps;
  const status = createEndpointStatus(deps);
  const load = async (count: number) => {
    status.loaded(config, {}, new Date(now), healthy, rows(count));
    await status.idle();
  };
  const countsLearned = () => written.at(-1)?.baseline?.fields.find((field) => field.path === 'rows')?.counts;
  return { load, countsLearned, advance: (ms: number) => (now += ms), written };
}

describe('the baseline a daemon learns from its loads', () => {
  it('learns from the first healthy load, from none of the next minute, then again', async () => {
    const { load, countsLearned, advance, written } = statusWithClock();
    await load(3);
    expect(countsLearned()).toEqual([3]);
    advance(10_000);
    await load(5);
    // Written (its last fetch), but the baseline is the one learned a minute ago.
    expect(written).toHaveLength(2);
    expect(written[1]!.lastFetchAt).toBe('2026-11-25T10:00:10.000Z');
    expect(countsLearned()).toEqual([3]);
    advance(LEARN_EVERY_MS);
    await load(4);
    expect(countsLearned()).toEqual([3, 4]);
  });
});
