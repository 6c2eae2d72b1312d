import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApiConfigInput, ProjectSettingsInput } from '../../src/core/config/schema.js';
import { startServer, type RunningServer } from '../../src/daemon/server.js';
import { CLI_BIN, ensureBuilt } from '../support/build-once.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { captureStream, issueKey, makeProject, type TempProject } from './daemon-support.js';

/**
 * Issue 52, item 1: a client that reads only the status and `errors` is not misled. Every answer carries the
 * endpoint's current health (cached ones too: after `check` found the endpoint broken, its cached answer says
 * so); the daemon logs the first unhealthy answer of an episode at warn; `health.refuseDegraded` turns
 * unhealthy answers into the broken answer's 502, refunded, and a healthy load serves and caches again.
 */
let site: FixtureSite;
let temp: TempProject | undefined;
const servers: RunningServer[] = [];

beforeAll(async () => {
  await ensureBuilt();
  site = await startFixtureSite();
});
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  site.state.delete('product');
  await temp?.cleanup();
  temp = undefined;
});
afterAll(async () => {
  await site?.close();
});

const desk = (required = false): ApiConfigInput => ({
  apiId: 'desk',
  url: `${site.origin}/health/product`,
  caching: true,
  structure: [
    { name: 'name', type: 'string', selector: 'main h1' },
    { name: 'price', type: 'number', selector: '.price-box .price:not(del *)', transform: ['number'] },
    { name: 'sku', type: 'string', selector: '.sku', ...(required ? { required: true } : {}) },
  ],
});

const cli = (...args: string[]) => execa(process.execPath, [CLI_BIN, ...args], { cwd: temp!.root, reject: false, env: { NO_COLOR: '1' } });

async function serve(config: ApiConfigInput, settings: ProjectSettingsInput = {}) {
  // A loaded machine may take seconds for a page: the answers' deadline is not what is tested here.
  temp = await makeProject([config], { ...settings, fetch: { timeoutMs: 30_000 }, extraction: { timeoutMs: 30_000 } });
  const log = captureStream();
  const server = await startServer({
    project: temp.project,
    host: '127.0.0.1',
    port: 0,
    watch: false,
    app: { logger: { level: 'warn', stream: log } },
  });
  servers.push(server);
  const { key, account } = await issueKey(server.runtime.store, { freeCredits: 100 });
  const get = async () => {
    const answer = await fetch(`${server.url}/external/desk`, { headers: { apikey: key } });
    const body = (await answer.json()) as { data: unknown; errors: Array<{ code: string; hint?: string }> | null };
    return { status: answer.status, cache: answer.headers.get('x-pagejson-cache'), health: answer.headers.get('x-pagejson-health'), body };
  };
  const balance = async () => (await server.runtime.store.getAccount(account))!.balance;
  const warnings = () =>
    log
      .text()
      .split('\n')
      .filter((line) => line.includes('"apiId":"desk"') && line.includes('"level":40') && !line.includes('"reqId"'));
  return { server, get, balance, warnings };
}

describe('every answer says the endpoint’s health', () => {
  it('healthy answers, cached ones too, carry the header; after `check` found the endpoint broken, its cached answer says broken', async () => {
    const { get } = await serve(desk(true));
    const first = await get();
    expect(first, JSON.stringify(first)).toMatchObject({ status: 200, cache: 'MISS', health: 'healthy' });
    expect(await get()).toMatchObject({ status: 200, cache: 'HIT', health: 'healthy' });
    site.state.set('product', '2');
    const checked = await cli('check', 'desk', '--json');
    expect(checked.exitCode, checked.stdout + checked.stderr).toBe(1);
    expect(JSON.parse(checked.stdout), checked.stdout).toMatchObject({ endpoints: [{ apiId: 'desk', state: 'broken' }] });
    // The cached answer is still served (health.refuseDegraded is off), marked with what `check` found.
    expect(await get()).toMatchObject({ status: 200, cache: 'HIT', health: 'broken' });
  });

  it('degraded answers are logged once per episode at warn, and again after the endpoint recovered and degraded anew', async () => {
    const { server, get, warnings } = await serve(desk());
    expect(await get()).toMatchObject({ status: 200, health: 'healthy' });
    expect(warnings()).toEqual([]);
    site.state.set('product', '2');
    await temp!.writeConfig({ ...desk(), revision: 2 });
    await server.reload();
    for (let i = 0; i < 3; i++)
      expect(await get()).toMatchObject({ status: 200, cache: 'MISS', health: 'degraded', body: { errors: null } });
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toContain('serving degraded data');
    expect(warnings()[0]).toContain('price: empty');
    site.state.delete('product');
    expect(await get()).toMatchObject({ status: 200, cache: 'MISS', health: 'healthy' });
    site.state.set('product', '2');
    await temp!.writeConfig({ ...desk(), revision: 3 });
    await server.reload();
    expect(await get()).toMatchObject({ status: 200, cache: 'MISS', health: 'degraded' });
    expect(await get()).toMatchObject({ status: 200, cache: 'MISS', health: 'degraded' });
    expect(warnings()).toHaveLength(2);
  });
});

describe('health.refuseDegraded', () => {
  it('a degraded answer is the broken answer’s 502 with the findings, refunded; a healthy load serves and caches again', async () => {
    const { server, get, balance, warnings } = await serve(desk(), { health: { refuseDegraded: true } });
    expect(await get()).toMatchObject({ status: 200, cache: 'MISS', health: 'healthy' });
    const before = await balance();
    site.state.set('product', '2');
    await temp!.writeConfig({ ...desk(), revision: 2 });
    await server.reload();
    const refused = await get();
    expect(refused.status).toBe(502);
    expect(refused.body.errors![0]!.code).toBe('EXTRACTION_EMPTY');
    expect(refused.body.errors![0]!.hint).toContain('degraded');
    expect(await balance()).toBe(before);
    expect(warnings(), warnings().join('\n')).toHaveLength(1);
    expect(warnings()[0]).toContain('refused');
    site.state.delete('product');
    expect(await get()).toMatchObject({ status: 200, cache: 'MISS', health: 'healthy' });
    expect(await get()).toMatchObject({ status: 200, cache: 'HIT', health: 'healthy' });
  });

  it('after `check` found the endpoint degraded, its cached answer is not served: the page is loaded again and refused', async () => {
    const { get, balance } = await serve(desk(), { health: { refuseDegraded: true } });
    expect(await get()).toMatchObject({ status: 200, cache: 'MISS', health: 'healthy' });
    expect(await get()).toMatchObject({ status: 200, cache: 'HIT', health: 'healthy' });
    site.state.set('product', '2');
    expect((await cli('check', 'desk')).exitCode).toBe(1);
    const before = await balance();
    expect(await get()).toMatchObject({ status: 502, body: { errors: [{ code: 'EXTRACTION_EMPTY' }] } });
    expect(await balance()).toBe(before);
    // Repaired at the source: the next request loads, is healthy, and is kept again.
    site.state.delete('product');
    expect(await get()).toMatchObject({ status: 200, cache: 'MISS', health: 'healthy' });
    expect(await get()).toMatchObject({ status: 200, cache: 'HIT', health: 'healthy' });
  });
});
