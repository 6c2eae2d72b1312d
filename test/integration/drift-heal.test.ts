import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ApiConfigInput, ProjectSettingsInput } from '../../src/core/config/schema.js';
import { startServer, type RunningServer } from '../../src/daemon/server.js';
import { CLI_BIN, ensureBuilt } from '../support/build-once.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { issueKey, makeProject, type TempProject } from './daemon-support.js';

/**
 * Repair (issue 9): `pagejson heal` against the redesigned fixture shop with the heuristic and with an
 * OpenAI-compatible model (the fake server), and the daemon's own background repairs, proposed or applied.
 */
let site: FixtureSite;
let llm: FakeLlm;
let temp: TempProject;
const servers: RunningServer[] = [];

beforeAll(async () => {
  await ensureBuilt();
  site = await startFixtureSite();
  llm = await startFakeLlm();
});
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  site.state.delete('drift');
  await temp?.cleanup();
});
afterAll(async () => {
  await site?.close();
  await llm?.close();
});

const sample = {
  title: 'Books',
  books: [
    { title: 'A Light in the Attic', url: 'PLACEHOLDER/books/light', price: 51.77 },
    { title: 'Tipping the Velvet', url: 'PLACEHOLDER/books/velvet', price: 53.74 },
  ],
};
const books = (extra: Partial<ApiConfigInput> = {}): ApiConfigInput => ({
  apiId: 'books',
  url: `${site.origin}/drift/shop`,
  structure: [
    { name: 'title', type: 'string', selector: 'h1.shop-title' },
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
  generated: {
    at: '2026-11-01T00:00:00Z',
    model: 'heuristic',
    scraper: 1,
    sample: JSON.parse(JSON.stringify(sample).replaceAll('PLACEHOLDER', site.origin)),
  },
  ...extra,
});

const cli = (...args: string[]) => execa(process.execPath, [CLI_BIN, ...args], { cwd: temp.root, reject: false, env: { NO_COLOR: '1' } });
const configFile = () => join(temp.root, 'configs/books.json');

async function start(settings: ProjectSettingsInput, config = books()): Promise<RunningServer> {
  temp = await makeProject([config], settings);
  const server = await startServer({ project: temp.project, host: '127.0.0.1', port: 0, watch: false, app: { logger: false } });
  servers.push(server);
  return server;
}

describe('pagejson heal', () => {
  it('shows the repair and writes nothing without --yes; with --yes saves the next revision, which extracts again', async () => {
    temp = await makeProject([books()]);
    site.state.set('drift', '2');
    const before = await readFile(configFile(), 'utf8');
    const shown = await cli('heal', 'books', '--json');
    // Nothing written: the endpoint is still not healthy, so heal exits 1 (issue 33).
    expect(shown.exitCode).toBe(1);
    const proposal = JSON.parse(shown.stdout) as {
      written: boolean;
      toRevision: number;
      recovery: { found: number; total: number };
      unrepaired: string[];
      changes: Array<{ text: string }>;
      by: string;
      health: { state: string };
    };
    expect(proposal).toMatchObject({ written: false, toRevision: 2, by: 'heuristic', unrepaired: [], health: { state: 'broken' } });
    expect(proposal.recovery.found).toBe(proposal.recovery.total);
    expect(proposal.changes.map((c) => c.text).join('\n')).toContain('books');
    expect(await readFile(configFile(), 'utf8')).toBe(before);

    const human = await cli('heal', 'books');
    expect(human.stdout).toMatch(/books: repair by heuristic, recovers 7 of 7 last good values \(100%\)/);
    expect(human.stdout).toContain('nothing written: run `pagejson heal books --yes` to save it');
    expect(human.stdout).toContain('  with the repair: healthy');

    const saved = await cli('heal', 'books', '--yes');
    expect(saved.exitCode).toBe(0);
    expect(saved.stdout).toContain('saved configs/books.json, revision 2');
    expect((await cli('validate')).exitCode).toBe(0);
    const run = JSON.parse((await cli('run', 'books', '--json')).stdout) as {
      data: { books: Array<{ title: string; price: number }> };
      health: { state: string };
    };
    expect(run.health.state).toBe('healthy');
    expect(run.data.books).toHaveLength(4);
    expect(run.data.books[3]).toMatchObject({ title: 'Sharp Objects', price: 47.82 });
  });

  it('with an OpenAI-compatible model: asks it with the fields and last good values, and keeps only what extraction verifies', async () => {
    temp = await makeProject([books({ model: 'local' })], { models: { local: { baseURL: llm.baseURL, model: 'fake-model' } } });
    site.state.set('drift', '2');
    llm.requests.length = 0;
    const field = (name: string, type: string, selector: string | null, extra: Record<string, unknown> = {}) => ({
      name,
      type,
      selector,
      attribute: null,
      transform: null,
      description: null,
      items: null,
      fields: null,
      ...extra,
    });
    // The model gets the list right, and a wrong selector for the title (the heuristic's stands in for it).
    llm.script([
      {
        json: {
          structure: [
            field('title', 'string', 'h2.nowhere'),
            field('books', 'array', 'li.Card_root__x7Hq2', {
              fields: [
                field('title', 'string', 'h4 a'),
                field('url', 'url', 'h4 a', { attribute: 'href' }),
                field('price', 'number', 'div span'),
              ],
            }),
          ],
        },
      },
    ]);
    const result = await cli('heal', 'books', '--yes', '--json');
    expect(result.exitCode).toBe(0);
    expect(llm.requests).toHaveLength(1);
    const prompt = JSON.stringify(llm.requests[0]!.body.messages);
    expect(prompt).toContain('Tipping the Velvet');
    expect(prompt).toContain('redesigned');
    const printed = JSON.parse(result.stdout) as { written: boolean; by: string; recovery: { found: number; total: number } };
    expect(printed.written).toBe(true);
    expect(printed.by).toContain('local');
    expect(printed.recovery.found).toBe(printed.recovery.total);
    const saved = JSON.parse(await readFile(configFile(), 'utf8')) as {
      revision: number;
      structure: Array<{ selector: string; fields?: Array<{ selector: string }> }>;
    };
    expect(saved.revision).toBe(2);
    expect(saved.structure[1]!.selector).toBe('li.Card_root__x7Hq2');
    expect(saved.structure[0]!.selector).not.toBe('h2.nowhere');
  });
});

describe('the daemon repairs by itself', () => {
  it('heal "propose" writes configs/books.proposed.json beside the untouched file, status shows it, `heal` applies it', async () => {
    const server = await start({});
    const { key } = await issueKey(server.runtime.store);
    const before = await readFile(configFile(), 'utf8');
    site.state.set('drift', '2');
    // Every selector misses on the redesigned page: the endpoint is broken (502), and a repair starts.
    const answer = await fetch(`${server.url}/external/books`, { headers: { apikey: key } });
    expect(answer.status).toBe(502);
    await server.runtime.repairs.idle();
    const proposed = JSON.parse(await readFile(join(temp.root, 'configs/books.proposed.json'), 'utf8')) as {
      revision: number;
      structure: Array<{ selector: string }>;
    };
    expect(proposed.revision).toBe(2);
    expect(proposed.structure[1]!.selector).not.toBe('article.book');
    expect(await readFile(configFile(), 'utf8')).toBe(before);
    // The proposal is not a config the daemon serves or validate checks.
    expect((await cli('validate')).exitCode).toBe(0);
    // Once per endpoint and revision: more degraded answers start no second repair.
    await fetch(`${server.url}/external/books`, { headers: { apikey: key } });
    await server.runtime.repairs.idle();
    const status = JSON.parse((await cli('status', '--json')).stdout) as {
      endpoints: Array<{ repair: { outcome: string; revision: number } | null }>;
    };
    expect(status.endpoints[0]!.repair).toMatchObject({ outcome: 'proposed', revision: 2 });
    expect((await cli('status')).stdout).toContain('repair proposed: pagejson heal books');

    const applied = await cli('heal', 'books', '--yes');
    expect(applied.stdout).toContain('repair by the daemon (stored proposal)');
    expect(applied.stdout).toContain('saved configs/books.json, revision 2');
    await expect(readFile(join(temp.root, 'configs/books.proposed.json'))).rejects.toThrow();
    await server.reload();
    const healed = await fetch(`${server.url}/external/books`, { headers: { apikey: key } });
    expect(healed.headers.get('x-pagejson-health')).toBe('healthy');
    expect(((await healed.json()) as { data: { books: unknown[] } }).data.books).toHaveLength(4);
  });

  it('heal "apply" saves the repair as the next revision; "off" does nothing', async () => {
    const server = await start({ heal: 'apply' });
    const { key } = await issueKey(server.runtime.store);
    site.state.set('drift', '2');
    await fetch(`${server.url}/external/books`, { headers: { apikey: key } });
    await server.runtime.repairs.idle();
    const saved = JSON.parse(await readFile(configFile(), 'utf8')) as { revision: number };
    expect(saved.revision).toBe(2);
    // The reviewed revision is kept, not lost.
    const kept = JSON.parse(await readFile(join(temp.root, 'configs/__snapshots__/books/revision-1.json'), 'utf8')) as {
      revision?: number;
      structure: Array<{ selector: string }>;
    };
    expect(kept.structure[1]!.selector).toBe('article.book');
    // …and it is not taken for a snapshot by `pagejson test`.
    expect((await cli('test')).stdout).toContain('0 snapshots');
    await server.reload();
    const answer = await fetch(`${server.url}/external/books`, { headers: { apikey: key } });
    expect(answer.headers.get('x-pagejson-health')).toBe('healthy');

    await server.close();
    servers.length = 0;
    await temp.cleanup();
    const off = await start({ heal: 'off' });
    const other = await issueKey(off.runtime.store);
    await fetch(`${off.url}/external/books`, { headers: { apikey: other.key } });
    await off.runtime.repairs.idle();
    expect(JSON.parse(await readFile(configFile(), 'utf8')).revision ?? 1).toBe(1);
    await expect(readFile(join(temp.root, 'configs/books.proposed.json'))).rejects.toThrow();
  });
});
