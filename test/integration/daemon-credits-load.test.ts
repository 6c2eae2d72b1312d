import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLowdbStore } from '../../src/core/state/lowdb-store.js';
import { startServer, type RunningServer } from '../../src/daemon/server.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { issueKey, makeProject, pageConfig, type TempProject } from './daemon-support.js';

/**
 * Nothing lost, nothing double-spent (docs/daemon.md): 50 connections against a slow page with caching
 * off, three times as many requests as the balance pays for. Exactly the paid number get data, every other
 * answer is the no-credits envelope, and the balance ends at exactly zero, in memory and on disk.
 */
interface AutocannonResult {
  statusCodeStats: Record<string, { count: number }>;
  errors: number;
  timeouts: number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

const PAID = 40;
const COST = 400;
let site: FixtureSite;
let temp: TempProject;
let server: RunningServer;

beforeAll(async () => {
  site = await startFixtureSite();
  temp = await makeProject([pageConfig('slow', `${site.origin}/daemon/slow?ms=40`, { caching: false })]);
  server = await startServer({ project: temp.project, host: '127.0.0.1', port: 0, watch: false, app: { logger: false } });
});

afterAll(async () => {
  await server?.close();
  await site?.close();
  await temp?.cleanup();
});

describe('credits under load', () => {
  it('serves exactly the paid number of requests and ends at a balance of exactly zero', async () => {
    const { key, account } = await issueKey(server.runtime.store, { freeCredits: (PAID * COST) / 1000, account: 'load' });
    const wrongBodies: string[] = [];
    const result = await autocannon({
      url: `${server.url}/external/slow`,
      connections: 50,
      amount: PAID * 3,
      headers: { apikey: key },
      requests: [
        {
          onResponse: (status: number, body: string) => {
            if (
              status === 402 &&
              body !== '{"data":null,"errors":[{"message":"No credits left ⚠. Please buy more credits","code":"NO_CREDITS"}]}'
            )
              wrongBodies.push(body);
            if (status === 200 && body !== '{"data":{"title":"Slow page","kind":"slow"},"errors":null}') wrongBodies.push(body);
          },
        },
      ],
    });
    expect(result.errors).toBe(0);
    const counts = Object.fromEntries(Object.entries(result.statusCodeStats).map(([status, stat]) => [status, Number(stat.count)]));
    expect(counts).toEqual({ '200': PAID, '402': PAID * 2 });
    expect(wrongBodies).toEqual([]);
    expect(site.hitCount('/daemon/slow')).toBe(PAID);
    expect((await server.runtime.store.getAccount(account))!.balance).toBe(0);
    await server.runtime.retrieval.flushUsage();
    const usage = await server.runtime.store.usage({ apiId: 'slow' });
    expect(usage.reduce((sum, row) => sum + row.milliCredits, 0)).toBe(PAID * COST);

    await server.close();
    const reopened = await createLowdbStore({ file: join(temp.project.dataDir, 'state.json') });
    expect((await reopened.getAccount(account))!.balance).toBe(0);
    await reopened.close();
  });
});
