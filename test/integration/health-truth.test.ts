import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApiConfigInput } from '../../src/core/config/schema.js';
import { startServer, type RunningServer } from '../../src/daemon/server.js';
import { CLI_BIN, ensureBuilt } from '../support/build-once.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { issueKey, makeProject, type TempProject } from './daemon-support.js';

/**
 * Truthful health (issue 33), end to end on pages written for it (test/support/site-routes/health.ts): for
 * each kind of change, the daemon learns the baseline from a healthy answer, then serves the changed page
 * marked degraded (`X-Pagejson-Health`), never cached (MISS every time), recorded in the endpoint's status with
 * findings that name the field, one `endpoint.degraded` event per episode; `check` (through the daemon's admin
 * socket) agrees and names `heal`; `heal --yes` repairs it and the endpoint is healthy and cached again.
 */
let site: FixtureSite;
let temp: TempProject;
const servers: RunningServer[] = [];

beforeAll(async () => {
  await ensureBuilt();
  site = await startFixtureSite();
});
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  for (const key of ['product', 'planets', 'products', 'products-n']) site.state.delete(key);
  await temp?.cleanup();
});
afterAll(async () => {
  await site?.close();
});

const cli = (...args: string[]) => execa(process.execPath, [CLI_BIN, ...args], { cwd: temp.root, reject: false, env: { NO_COLOR: '1' } });

const product = (): ApiConfigInput => ({
  apiId: 'desk',
  url: `${site.origin}/health/product`,
  structure: [
    { name: 'name', type: 'string', selector: 'main h1' },
    { name: 'price', type: 'number', selector: '.price-box .price:not(del *)', transform: ['number'] },
    { name: 'currency', type: 'string', selector: '.price-box .price:not(del *)', attribute: 'data-currency' },
    { name: 'sku', type: 'string', selector: '.sku' },
  ],
});
const furniture = (): ApiConfigInput => ({
  apiId: 'furniture',
  url: `${site.origin}/health/products`,
  structure: [
    { name: 'heading', type: 'string', selector: 'h1' },
    {
      name: 'products',
      type: 'array',
      selector: 'div.products > article.product',
      fields: [
        { name: 'title', type: 'string', selector: 'a.title' },
        { name: 'url', type: 'url', selector: 'a.title', attribute: 'href', transform: ['absoluteUrl'] },
        { name: 'price', type: 'number', selector: '.price', transform: ['number'] },
      ],
    },
  ],
});
const planets = (): ApiConfigInput => ({
  apiId: 'planets',
  url: `${site.origin}/health/planets`,
  structure: [
    { name: 'title', type: 'string', selector: 'article h1' },
    {
      name: 'rows',
      type: 'array',
      selector: 'article table:first-of-type tbody tr',
      fields: [
        { name: 'planet', type: 'string', selector: 'td:nth-child(1)' },
        { name: 'moons', type: 'string', selector: 'td:nth-child(2)' },
      ],
    },
  ],
});
const tagList = (): ApiConfigInput => ({
  apiId: 'tags',
  url: `${site.origin}/health/tags`,
  structure: [
    { name: 'heading', type: 'string', selector: 'h1' },
    { name: 'tags', type: 'array', selector: 'ul.tags li', items: { type: 'string' } },
  ],
});

async function serve(configs: ApiConfigInput[]): Promise<{ server: RunningServer; get: (apiId: string) => Promise<Response> }> {
  temp ??= await makeProject(configs);
  const server = await startServer({ project: temp.project, host: '127.0.0.1', port: 0, watch: false, app: { logger: false } });
  servers.push(server);
  const { key } = await issueKey(server.runtime.store, { freeCredits: 1000 });
  return { server, get: (apiId) => fetch(`${server.url}/external/${apiId}`, { headers: { apikey: key } }) };
}

/** Two answers in a row: their cache state and health header. */
async function twice(get: (apiId: string) => Promise<Response>, apiId: string): Promise<Array<[string | null, string | null]>> {
  const out: Array<[string | null, string | null]> = [];
  for (let i = 0; i < 2; i++) {
    const answer = await get(apiId);
    expect(answer.status).toBe(200);
    await answer.arrayBuffer();
    out.push([answer.headers.get('x-pagejson-cache'), answer.headers.get('x-pagejson-health')]);
  }
  return out;
}

const statusOf = async (server: RunningServer, apiId: string) =>
  (await server.runtime.store.listEndpointStatus()).find((status) => status.apiId === apiId)!;

/** A new revision of the file (cache keys include it) read by the daemon, as an edit would make one. */
async function bump(server: RunningServer, config: ApiConfigInput, revision: number): Promise<void> {
  await temp.writeConfig({ ...config, revision });
  await server.reload();
}

const CASES = [
  {
    change: 'classes renamed',
    config: product,
    live: ['product', '2'],
    findings: [
      'price: empty in 1 of 1 (was filled in 1 of 1)',
      'currency: empty in 1 of 1 (was filled in 1 of 1)',
      'sku: empty in 1 of 1 (was filled in 1 of 1)',
    ],
  },
  {
    change: 'an extra wrapper',
    config: furniture,
    live: ['products', '3'],
    findings: ['products: empty (had at least 6 items in every good observation)'],
  },
  {
    change: 'a table inserted before the target table',
    config: planets,
    live: ['planets', '2'],
    // The columns are read under other headers (and the moons became text: the first finding of a field is said).
    findings: ['rows[].planet: read under the header "Offer" (was "Planet")', 'rows[].moons: read under the header "Code" (was "Moons")'],
  },
  {
    change: 'the item container renamed',
    config: furniture,
    live: ['products', '2'],
    findings: ['products: empty (had at least 6 items in every good observation)'],
  },
] as const;

describe('truthful health on written pages: the daemon, check and heal agree', () => {
  for (const { change, config, live, findings } of CASES) {
    it(`${change}: degraded, never cached, recorded, one webhook event; check names heal; heal repairs it`, async () => {
      temp = undefined as unknown as TempProject;
      const { server, get } = await serve([config()]);
      const apiId = config().apiId;
      // Healthy: cached, unmarked; the load teaches the baseline.
      expect(await twice(get, apiId)).toEqual([
        ['MISS', 'healthy'],
        ['HIT', 'healthy'],
      ]);
      site.state.set(live[0], live[1]);
      await bump(server, config(), 2);
      expect(await twice(get, apiId)).toEqual([
        ['MISS', 'degraded'],
        ['MISS', 'degraded'],
      ]);
      expect(await statusOf(server, apiId)).toMatchObject({ health: 'degraded', findings });
      const history = await server.runtime.watch.monitors.history(apiId, 10);
      const degraded = history.filter((entry) => entry.kind === 'endpoint.degraded');
      expect(degraded).toHaveLength(1);
      // The event says what changed (its payload carries the findings too).
      expect(degraded[0]!.detail).toBe(findings.join('; '));

      const checked = await cli('check', apiId);
      expect(checked.exitCode).toBe(1);
      for (const finding of findings) expect(checked.stdout.replace(/\s*│\s*/g, ' ')).toContain(finding.slice(0, 30));
      expect(checked.stdout).toContain(`\`pagejson heal ${apiId}\``);
      const checkedJson = JSON.parse((await cli('check', apiId, '--json')).stdout) as { endpoints: Array<{ findings: string[] }> };
      expect(checkedJson.endpoints[0]!.findings).toEqual(findings);

      const healed = await cli('heal', apiId, '--yes');
      expect(healed.stdout).toContain('with the repair: healthy');
      expect(healed.exitCode).toBe(0);
      await server.reload();
      expect(await twice(get, apiId)).toEqual([
        ['MISS', 'healthy'],
        ['HIT', 'healthy'],
      ]);
      expect(await statusOf(server, apiId)).toMatchObject({ health: 'healthy' });
      expect((await server.runtime.watch.monitors.history(apiId, 10)).map((entry) => entry.kind)).toContain('endpoint.recovered');
    });
  }

  it('a field renamed by edit before the redesign keeps its baseline: the new name is named', async () => {
    temp = undefined as unknown as TempProject;
    const { server, get } = await serve([furniture()]);
    expect((await get('furniture')).status).toBe(200);
    const renamed = await cli('edit', 'furniture', '--rename', 'products=items');
    expect(renamed.exitCode).toBe(0);
    await server.reload();
    site.state.set('products', '2');
    expect(await twice(get, 'furniture')).toEqual([
      ['MISS', 'degraded'],
      ['MISS', 'degraded'],
    ]);
    expect(await statusOf(server, 'furniture')).toMatchObject({
      health: 'degraded',
      failingFields: ['items'],
      findings: ['items: empty (had at least 6 items in every good observation)'],
    });
    const checked = JSON.parse((await cli('check', 'furniture', '--json')).stdout) as { endpoints: Array<{ findings: string[] }> };
    expect(checked.endpoints[0]!.findings).toEqual(['items: empty (had at least 6 items in every good observation)']);
  });

  it('a selector broken by an edit on an unchanged page: degraded; heal repairs the list of strings', async () => {
    temp = undefined as unknown as TempProject;
    const { server, get } = await serve([tagList()]);
    expect((await get('tags')).status).toBe(200);
    expect((await cli('edit', 'tags', '--set', 'tags.selector=ul.tags li:first-child')).exitCode).toBe(0);
    await server.reload();
    expect(await twice(get, 'tags')).toEqual([
      ['MISS', 'degraded'],
      ['MISS', 'degraded'],
    ]);
    expect(await statusOf(server, 'tags')).toMatchObject({ findings: ['tags: 1 item (had at least 13 in every good observation)'] });
    // No snapshot, no sample: heal anchors on the latest healthy data the status keeps (its first 10 tags and the heading).
    const healed = await cli('heal', 'tags', '--yes', '--json');
    expect(healed.exitCode).toBe(0);
    expect(JSON.parse(healed.stdout)).toMatchObject({ written: true, recovery: { found: 11, total: 11 }, health: { state: 'healthy' } });
    await server.reload();
    expect(await twice(get, 'tags')).toEqual([
      ['MISS', 'healthy'],
      ['HIT', 'healthy'],
    ]);
  });

  it('a required field gone is broken: the 502, recorded with its finding', async () => {
    temp = undefined as unknown as TempProject;
    const required = {
      ...product(),
      structure: product().structure.map((field) => (field.name === 'sku' ? { ...field, required: true } : field)),
    };
    const { server, get } = await serve([required]);
    expect((await get('desk')).status).toBe(200);
    site.state.set('product', '2');
    await bump(server, required, 2);
    expect((await get('desk')).status).toBe(502);
    expect(await statusOf(server, 'desk')).toMatchObject({ health: 'broken', failingFields: ['sku'] });
  });
});

describe('no false alarms, and the last fetch recorded', () => {
  it('re-checking unchanged pages stays healthy, lists shorter on another fetch too; run and check record the last fetch', async () => {
    temp = await makeProject([product(), furniture(), planets(), tagList()]);
    const before = JSON.parse((await cli('status', '--json')).stdout) as { endpoints: Array<{ lastFetchAt: string | null }> };
    expect(before.endpoints.every((endpoint) => endpoint.lastFetchAt === null)).toBe(true);
    const ran = await cli('run', 'desk');
    expect(ran.exitCode).toBe(0);
    expect(ran.stderr).not.toContain('health:');
    for (let round = 0; round < 2; round++) {
      const checked = await cli('check', '--json');
      expect(checked.exitCode).toBe(0);
      expect((JSON.parse(checked.stdout) as { endpoints: Array<{ state: string }> }).endpoints.map((e) => e.state)).toEqual([
        'healthy',
        'healthy',
        'healthy',
        'healthy',
      ]);
    }
    const after = JSON.parse((await cli('status', '--json')).stdout) as {
      endpoints: Array<{ apiId: string; lastFetchAt: string | null; health: string }>;
    };
    expect(after.endpoints.every((endpoint) => endpoint.lastFetchAt !== null && endpoint.health === 'healthy')).toBe(true);
    // The list is shorter on other fetches (fewer products in stock): never a break while above half the fewest.
    for (const n of ['5', '4', '3']) {
      site.state.set('products-n', n);
      const checked = await cli('check', 'furniture', '--json');
      expect(checked.exitCode, `${n} products: ${checked.stdout} ${checked.stderr}`).toBe(0);
    }
    site.state.set('products-n', '1');
    const shrunk = JSON.parse((await cli('check', 'furniture', '--json')).stdout) as { endpoints: Array<{ findings: string[] }> };
    expect(shrunk.endpoints[0]!.findings).toEqual(['products: 1 item (had at least 3 in every good observation)']);
  });

  it('a monitor run records the last fetch and the health too (the dashboard never says "never" after it)', async () => {
    temp = await makeProject([{ ...tagList(), monitor: { every: '1h' } }]);
    expect((await cli('monitor', 'run', 'tags')).exitCode).toBe(0);
    const shown = JSON.parse((await cli('status', '--json')).stdout) as {
      endpoints: Array<{ lastFetchAt: string | null; health: string }>;
    };
    expect(shown.endpoints[0]).toMatchObject({ health: 'healthy' });
    expect(shown.endpoints[0]!.lastFetchAt).not.toBeNull();
  });

  it('check --accept takes a change that is right as the new baseline: the next checks are healthy', async () => {
    temp = await makeProject([planets()]);
    expect((await cli('check', 'planets')).exitCode).toBe(0);
    site.state.set('planets', '2');
    expect((await cli('check', 'planets')).exitCode).toBe(1);
    const accepted = await cli('check', 'planets', '--accept', '--json');
    expect(accepted.exitCode).toBe(0);
    expect(JSON.parse(accepted.stdout)).toMatchObject({ ok: true, endpoints: [{ apiId: 'planets', state: 'healthy', findings: [] }] });
    expect((await cli('check', 'planets')).exitCode).toBe(0);
  });
});
