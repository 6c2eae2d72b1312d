import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApiConfigInput } from '../../src/core/config/schema.js';
import { startServer, type RunningServer } from '../../src/daemon/server.js';
import { CLI_BIN, ensureBuilt } from '../support/build-once.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { issueKey, makeProject, type TempProject } from './daemon-support.js';

/**
 * Drift (issue 9, first parts): field health at every retrieval in `run`, `check` and the daemon, and
 * snapshots that `pagejson test` checks offline, against a fixture shop that can be "redesigned" under them.
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
  site.state.delete('drift');
  await temp?.cleanup();
});
afterAll(async () => {
  await site?.close();
});

const sample = {
  title: 'Books',
  books: [
    { title: 'A Light in the Attic', url: 'x', price: 51.77 },
    { title: 'Tipping the Velvet', url: 'x', price: 53.74 },
  ],
};
const books = (): ApiConfigInput => ({
  apiId: 'books',
  url: `${site.origin}/drift/shop`,
  structure: [
    { name: 'title', type: 'string', selector: 'h1' },
    {
      name: 'books',
      type: 'array',
      selector: 'article.book',
      fields: [
        { name: 'title', type: 'string', selector: '.book-title a' },
        { name: 'url', type: 'url', selector: '.book-title a', attribute: 'href', transform: ['absoluteUrl'] },
        { name: 'price', type: 'number', selector: '.book-price', transform: ['number'] },
      ],
    },
  ],
  generated: { at: '2026-11-01T00:00:00Z', model: 'heuristic', scraper: 1, sample },
});

const cli = (...args: string[]) => execa(process.execPath, [CLI_BIN, ...args], { cwd: temp.root, reject: false, env: { NO_COLOR: '1' } });

describe('snapshot and test', () => {
  it('keeps the page and its data deterministically, passes offline, and reports a broken edit field by field', async () => {
    temp = await makeProject([books()]);
    const taken = await cli('snapshot', 'books', '--json');
    expect(taken.exitCode).toBe(0);
    const written = JSON.parse(taken.stdout) as { name: string; dataFile: string; pageFile: string };
    expect(written).toMatchObject({
      name: 'default',
      dataFile: 'configs/__snapshots__/books/default.json',
      pageFile: 'configs/__snapshots__/books/default.html.gz',
    });
    const first = [await readFile(join(temp.root, written.dataFile)), await readFile(join(temp.root, written.pageFile))];
    expect((await cli('snapshot', 'books')).exitCode).toBe(0);
    expect([await readFile(join(temp.root, written.dataFile)), await readFile(join(temp.root, written.pageFile))]).toEqual(first);
    expect(JSON.parse(first[0]!.toString()).data.books).toHaveLength(4);

    // Offline: the site is down (redesigned, even), the snapshot still says what the config extracts.
    site.state.set('drift', '3');
    const passing = await cli('test');
    expect(passing.exitCode).toBe(0);
    expect(passing.stdout).toContain('✓ books/default');
    expect(passing.stdout).toContain('1 snapshot, 0 changed');

    // An edit that breaks the price selector fails `test`, naming each changed value.
    const file = join(temp.root, 'configs/books.json');
    await writeFile(file, (await readFile(file, 'utf8')).replace('.book-price', '.book-cost'));
    const failing = await cli('test');
    expect(failing.exitCode).toBe(1);
    expect(failing.stdout).toContain('✗ books/default (4 differences)');
    expect(failing.stdout).toContain('books[0].price: 51.77 → null');
    const github = await cli('test', '--format', 'github');
    expect(github.stdout).toMatch(
      /^::error file=configs\/books\.json,title=pagejson test books\/default::books\[\]\.price: empty in 4 of 4 items \(was filled in 2 of 2\)%0Abooks\[0\]\.price: 51\.77 → null%0A/m,
    );
    const json = JSON.parse((await cli('test', '--format', 'json')).stdout) as { ok: boolean; outcomes: Array<{ differences: unknown[] }> };
    expect(json.ok).toBe(false);
    expect(json.outcomes[0]!.differences).toHaveLength(4);

    // --update takes the new data as expected.
    expect((await cli('test', '--update')).exitCode).toBe(0);
    expect((await cli('test')).exitCode).toBe(0);
  });
});

describe('field health, live', () => {
  it('check says healthy, then degraded after a redesign (exit 1), and run says which field failed', async () => {
    temp = await makeProject([books()]);
    const healthy = await cli('check', '--json');
    expect(healthy.exitCode, healthy.stdout).toBe(0);
    expect(JSON.parse(healthy.stdout).endpoints[0]).toMatchObject({ apiId: 'books', state: 'healthy', failing: [] });

    site.state.set('drift', '2');
    const degraded = await cli('check');
    expect(degraded.exitCode).toBe(1);
    expect(degraded.stdout).toMatch(/books\s+│?\s*degraded/);
    expect(degraded.stdout).toContain('books: empty (had at least 2 items in every good observation)');
    // The way out names heal (issue 33 item 5).
    expect(degraded.stdout).toContain('`pagejson heal books`');
    const run = await cli('run', 'books');
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toContain('health: degraded: books: empty (had at least 2 items in every good observation)');
    expect(run.stderr).toContain('`pagejson heal books`');
  });

  it('the daemon serves a degraded answer flagged and uncached, records since when, and counts answers by health', async () => {
    temp = await makeProject([books()]);
    const server = await startServer({ project: temp.project, host: '127.0.0.1', port: 0, watch: false, app: { logger: false } });
    servers.push(server);
    const { key } = await issueKey(server.runtime.store);
    const get = () => fetch(`${server.url}/external/books`, { headers: { apikey: key } });

    const fine = await get();
    expect(fine.status).toBe(200);
    expect(fine.headers.get('x-pagejson-health')).toBe('healthy');
    expect((await get()).headers.get('x-pagejson-cache')).toBe('HIT');

    // Redesigned: a new revision of the config (cache keys include it) meets the new page.
    await temp.writeConfig({ ...books(), revision: 2 });
    await server.reload();
    site.state.set('drift', '2');
    for (let i = 0; i < 2; i++) {
      const answer = await get();
      expect(answer.status).toBe(200);
      expect(answer.headers.get('x-pagejson-health')).toBe('degraded');
      expect(answer.headers.get('x-pagejson-cache')).toBe('MISS');
      expect(((await answer.json()) as { data: { books: unknown[] } }).data.books).toEqual([]);
    }
    const status = (await server.runtime.store.listEndpointStatus()).find((s) => s.apiId === 'books')!;
    expect(status).toMatchObject({ health: 'degraded', failingFields: ['books'] });
    expect(Number.isNaN(Date.parse(status.healthSince!))).toBe(false);
    const shown = await cli('status', '--json');
    expect(JSON.parse(shown.stdout).endpoints[0]).toMatchObject({ apiId: 'books', health: 'degraded', failingFields: ['books'] });
    const table = (await cli('status')).stdout;
    expect(table).toMatch(/degraded since \d{4}-\d\d-\d\d \d\d:\d\d \(books\)/);
    await server.runtime.retrieval.flushUsage();
    expect((await cli('usage')).stdout).toMatch(/^books: degraded since .* \(books\); repair proposed: pagejson heal books$/m);
    const metrics = await (await fetch(`${server.metricsUrl!}/metrics`)).text();
    expect(metrics).toContain('pagejson_answers_by_health_total{api_id="books",health="degraded"} 2');
    expect(metrics).toContain('pagejson_answers_by_health_total{api_id="books",health="healthy"} 2');

    // Maintenance page: nothing extracts at all, the endpoint is broken.
    site.state.set('drift', '3');
    await temp.writeConfig({ ...books(), revision: 3, structure: books().structure.slice(1) });
    await server.reload();
    expect((await get()).status).toBe(502);
    expect((await server.runtime.store.listEndpointStatus()).find((s) => s.apiId === 'books')).toMatchObject({ health: 'broken' });
  });
});
