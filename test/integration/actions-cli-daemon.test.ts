import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiConfigInput } from '../../src/core/config/schema.js';
import { CLI_BIN, ensureBuilt } from '../support/build-once.js';
import { skipBrowserTests } from '../support/chromium.js';
import { ACTION_ITEMS } from '../support/site-routes/actions.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { makeProject, spawnServe, type ServeProcess, type TempProject } from './daemon-support.js';

/**
 * Browser actions and the load-more/scroll rounds (issue 34, docs/actions.md) as users meet them: configs in a
 * project, `validate`, `run`, `show` and `edit` as processes of the built CLI, and a running daemon answering
 * GET and POST (a search driven by a request variable), on the real system Chromium and the fixture site.
 */
const skip = skipBrowserTests();

let site: FixtureSite;
let temp: TempProject;
let serve: ServeProcess | undefined;
let key: string;

const cli = (...args: string[]) =>
  execa(process.execPath, [CLI_BIN, ...args], { cwd: temp.root, reject: false, env: { NO_COLOR: '1' }, timeout: 90_000 });
const strings = (name: string, selector: string) => ({ name, type: 'array' as const, selector, items: { type: 'string' as const } });

function configs(origin: string): ApiConfigInput[] {
  return [
    {
      apiId: 'consent',
      url: `${origin}/actions/consent.html?wall=1`,
      scraper: 3,
      actions: [{ ifExists: '#consent', then: [{ click: '#accept' }] }],
      structure: [strings('items', 'li.item')],
    },
    {
      apiId: 'late',
      url: `${origin}/actions/late.html?after=1500`,
      scraper: 3,
      actions: [{ wait: 'li.late' }],
      structure: [strings('items', 'li.item')],
    },
    {
      apiId: 'search',
      url: `${origin}/actions/search.html`,
      scraper: 3,
      variables: { q: { example: 'light', pattern: '[a-z ]{1,40}' }, sort: { example: 'asc', pattern: 'asc|desc' } },
      actions: [{ type: '#q', text: '{{ q }}' }, { select: '#sort', value: '{{ sort }}' }, { press: 'Enter' }, { wait: '#results' }],
      structure: [{ name: 'query', type: 'string', selector: 'p.query' }, strings('results', 'li.result')],
    },
    {
      apiId: 'more',
      url: `${origin}/actions/load-more.html?pages=3&size=3`,
      scraper: 3,
      pagination: { loadMore: '#more', key: 'url' },
      structure: [
        {
          name: 'items',
          type: 'array',
          selector: 'li.item',
          fields: [
            { name: 'name', type: 'string', selector: 'a' },
            { name: 'url', type: 'url', selector: 'a', attribute: 'href' },
          ],
        },
      ],
    },
    {
      apiId: 'capped',
      url: `${origin}/actions/load-more.html?pages=5&size=3`,
      scraper: 3,
      pagination: { loadMore: '#more', maxItems: 7 },
      structure: [strings('items', 'li.item')],
    },
    // A button that says "Loading…" while it fetches, as most do: 27 items in three batches.
    {
      apiId: 'loading',
      url: `${origin}/actions/load-more.html?pages=3&size=9&delay=300&label=1`,
      scraper: 3,
      pagination: { loadMore: '#more' },
      structure: [strings('items', 'li.item')],
    },
    {
      apiId: 'endless',
      url: `${origin}/actions/scroll.html?pages=3&size=5`,
      scraper: 3,
      pagination: { scroll: true },
      structure: [strings('items', 'li.item')],
    },
    // Each click is answered after 7 s, past the 6 s bound: the rounds end with the page as loaded, partial.
    {
      apiId: 'slowmore',
      url: `${origin}/actions/load-more.html?pages=3&size=3&delay=7000`,
      scraper: 3,
      caching: true,
      pagination: { loadMore: '#more' },
      structure: [strings('items', 'li.item')],
    },
    {
      apiId: 'never',
      url: `${origin}/actions/consent.html`,
      scraper: 3,
      actions: [{ click: '#nothing-to-accept' }],
      structure: [strings('items', 'li.item')],
    },
  ];
}

beforeAll(async () => {
  if (skip) return;
  await ensureBuilt();
  site = await startFixtureSite();
  // One bound for every config's steps: short, so the failing step fails fast (and in bounded time), yet twice
  // what three "Loading…" rounds take on a quiet machine, as CI's busy one once took over 3 s for them.
  temp = await makeProject(configs(site.origin), { fetch: { timeoutMs: 20_000, actionsTimeoutMs: 6_000 } });
  const created = await cli('keys', 'create', '--json');
  expect(created.exitCode).toBe(0);
  key = (JSON.parse(created.stdout) as { key: string }).key;
}, 300_000);

afterAll(async () => {
  if (serve && serve.child.exitCode === null) serve.child.kill('SIGTERM');
  await serve?.child.catch(() => undefined);
  await site?.close();
  await temp?.cleanup();
});

describe.skipIf(skip)('actions and browser rounds through the CLI', () => {
  it('validates the configs, and refuses steps on scraper 1, 51 steps and a variable the text does not declare, in words', async () => {
    expect((await cli('validate')).exitCode).toBe(0);
    await temp.writeConfig({
      apiId: 'broken',
      url: `${site.origin}/actions/search.html`,
      scraper: 1,
      actions: [{ type: '#q', text: '{{ q }}' }, ...Array.from({ length: 50 }, () => ({ click: 'button' }))],
      structure: [strings('results', 'li.result')],
    });
    try {
      const result = await cli('validate', 'configs/broken.json');
      expect(result.exitCode).toBe(1);
      expect(result.stdout).toContain('$.actions: at most 50 actions in all (those inside "then" included)');
      await temp.writeConfig({
        apiId: 'broken',
        url: `${site.origin}/actions/search.html`,
        scraper: 1,
        actions: [{ type: '#q', text: '{{ q }}' }],
        structure: [strings('results', 'li.result')],
      });
      const rules = await cli('validate', 'configs/broken.json');
      expect(rules.exitCode).toBe(1);
      expect(rules.stdout).toContain(
        '$.actions: actions need scraper 3 (the browser): scraper 1 (http) reads the page as it loads and cannot click, type or wait',
      );
      expect(rules.stdout).toContain('$.variables: placeholder {{ q }} has no entry in variables');
    } finally {
      await execa('rm', ['-f', `${temp.root}/configs/broken.json`]);
    }
  });

  it('runs a config behind a consent wall and one whose content comes after the network went quiet', async () => {
    const consent = await cli('run', 'consent');
    expect(consent.stderr).toBe('');
    expect(JSON.parse(consent.stdout)).toEqual({ items: ACTION_ITEMS.slice(0, 3) });
    const late = await cli('run', 'late');
    expect(JSON.parse(late.stdout)).toEqual({ items: ACTION_ITEMS.slice(0, 2) });
  });

  it('drives the search form with --var values', async () => {
    const result = await cli('run', 'search', '--var', 'q=light', '--var', 'sort=desc', '--json');
    expect(result.exitCode).toBe(0);
    const answer = JSON.parse(result.stdout) as { data: unknown; finalUrl: string };
    expect(answer.data).toEqual({ query: 'light', results: ['The Light Fantastic', 'Light Years', 'A Light in the Attic'] });
    expect(answer.finalUrl).toBe(`${site.origin}/actions/results.html?q=light&sort=desc`);
    const refused = await cli('run', 'search', '--var', 'q=Light!');
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('variable q does not match [a-z ]{1,40}');
  });

  it('reads every item behind "Load more", an endless scroll, and stops at maxItems', async () => {
    const more = JSON.parse((await cli('run', 'more')).stdout) as { items: Array<{ name: string; url: string }> };
    expect(more.items.map((item) => item.name)).toEqual(ACTION_ITEMS.slice(0, 9));
    expect(more.items[8]!.url).toBe(`${site.origin}/items/${encodeURIComponent(ACTION_ITEMS[8]!)}`);
    expect(JSON.parse((await cli('run', 'endless')).stdout)).toEqual({ items: ACTION_ITEMS.slice(0, 15) });
    expect(JSON.parse((await cli('run', 'capped')).stdout)).toEqual({ items: ACTION_ITEMS.slice(0, 7) });
  });

  it('reads all 27 items behind a button that says "Loading…" while it fetches, not the first batch', async () => {
    const loading = await cli('run', 'loading', '--json');
    expect(loading.stderr).toBe('');
    expect(JSON.parse(loading.stdout)).toMatchObject({ data: { items: ACTION_ITEMS.slice(0, 27) }, pages: 3 });
  });

  it('keeps every round of "Load more" in a snapshot, and test replays them offline to the same list', async () => {
    const snapshot = await cli('snapshot', 'more', '--json');
    expect(snapshot.exitCode).toBe(0);
    expect(JSON.parse(snapshot.stdout)).toMatchObject({
      pages: 3,
      pageFiles: ['configs/__snapshots__/more/default.page-2.html.gz', 'configs/__snapshots__/more/default.page-3.html.gz'],
    });
    const replay = await cli('test', 'more', '--format', 'json');
    expect(replay.exitCode).toBe(0);
    expect(JSON.parse(replay.stdout)).toMatchObject({ ok: true });
  });

  it('fails a step that never succeeds within fetch.actionsTimeoutMs, naming it, and refuses steps on another scraper', async () => {
    const result = await cli('run', 'never');
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(
      /step 1 \(click "#nothing-to-accept"\): no element it could click matched within the \d+ ms left of fetch\.actionsTimeoutMs/,
    );
    expect(result.stderr).toContain('hint: check the selector on the page');
    const other = await cli('run', 'consent', '--scraper', '1');
    expect(other.exitCode).toBe(2);
    expect(other.stderr).toContain('actions need scraper 3 (the browser), not scraper 1');
  });

  it('describes the search variables in the OpenAPI document, as a POST body and GET query', async () => {
    type Body = { properties: Record<string, { pattern?: string }>; required: string[] };
    const document = JSON.parse((await cli('openapi')).stdout) as {
      paths: Record<
        string,
        {
          post?: { requestBody: { content: { 'application/json': { schema: { $ref: string } } } } };
          get?: { parameters: Array<{ name: string }> };
        }
      >;
      components: { schemas: Record<string, Body> };
    };
    const search = document.paths['/external/search']!;
    const body = document.components.schemas[search.post!.requestBody.content['application/json'].schema.$ref.split('/').pop()!]!;
    expect(body.required.sort()).toEqual(['q', 'sort']);
    expect(body.properties.q!.pattern).toBe('^(?:[a-z ]{1,40})$');
    expect(search.get!.parameters.map((parameter) => parameter.name)).toEqual(expect.arrayContaining(['q', 'sort']));
    expect(document.paths['/external/consent']!.post).toBeUndefined();
  });

  it('shows the steps in words and edits them as JSON, refusing a typo', async () => {
    const shown = await cli('show', 'search');
    expect(shown.stdout).toMatch(
      /actions\n\s+1\s+type "\{\{ q \}\}" into "#q"\n\s+2\s+select "\{\{ sort \}\}" in "#sort"\n\s+3\s+press Enter\n\s+4\s+wait for "#results"/,
    );
    const typo = await cli('edit', 'late', '--set', 'actions=[{"wiat":"li.late"}]');
    expect(typo.exitCode).toBe(2);
    expect(typo.stderr).toContain('actions[0]');
    const edited = await cli('edit', 'late', '--set', 'actions=[{"waitMs":10},{"wait":"li.late"}]');
    expect(edited.exitCode).toBe(0);
    const file = JSON.parse(await execa('cat', [`${temp.root}/configs/late.json`]).then((out) => out.stdout)) as {
      actions: unknown;
      revision: number;
    };
    expect(file.actions).toEqual([{ waitMs: 10 }, { wait: 'li.late' }]);
    expect(file.revision).toBe(2);
  });
});

describe.skipIf(skip)('actions and browser rounds through a running daemon', () => {
  beforeAll(async () => {
    serve = await spawnServe(temp.root, ['--no-watch']);
  }, 60_000);

  const call = (apiId: string, init: RequestInit = {}) =>
    fetch(`${serve!.url}/external/${apiId}`, { ...init, headers: { apikey: key, ...init.headers } });

  it('answers POST with the search variable, caches each value apart, and checks it', async () => {
    const post = (q: string) =>
      call('search', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ q, sort: 'asc' }) });
    const light = await post('light');
    expect(light.status).toBe(200);
    expect(light.headers.get('x-pagejson-cache')).toBe('MISS');
    expect(((await light.json()) as { data: unknown }).data).toEqual({
      query: 'light',
      results: ['A Light in the Attic', 'Light Years', 'The Light Fantastic'],
    });
    const sharp = await post('sharp');
    expect(sharp.headers.get('x-pagejson-cache')).toBe('MISS');
    expect(((await sharp.json()) as { data: { results: string[] } }).data.results).toEqual(['Sharp Objects']);
    expect((await post('light')).headers.get('x-pagejson-cache')).toBe('HIT');
    const bad = await post('<script>');
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      data: null,
      errors: [{ message: 'variable q does not match [a-z ]{1,40}', code: 'VARIABLE_PATTERN' }],
    });
    const get = await call('search?q=sharp&sort=asc');
    expect(get.headers.get('x-pagejson-cache')).toBe('HIT');
  });

  it('answers GET behind a consent wall and with every item behind "Load more", saying how many pages it holds', async () => {
    const consent = await call('consent');
    expect(((await consent.json()) as { data: unknown }).data).toEqual({ items: ACTION_ITEMS.slice(0, 3) });
    const more = await call('more');
    expect(more.status).toBe(200);
    expect(more.headers.get('x-pagejson-pages')).toBe('3');
    expect(((await more.json()) as { data: { items: unknown[] } }).data.items).toHaveLength(9);
  });

  it('answers the pages read when the time bound ends the rounds, says it is partial, and does not cache it', async () => {
    const first = await call('slowmore');
    expect(first.status).toBe(200);
    expect(first.headers.get('x-pagejson-pages')).toBe('1');
    expect(first.headers.get('x-pagejson-partial')).toBe('time');
    expect(((await first.json()) as { data: unknown }).data).toEqual({ items: ACTION_ITEMS.slice(0, 3) });
    expect((await call('slowmore')).headers.get('x-pagejson-cache')).toBe('MISS');
  });

  it('fails a step that never succeeds as a 502 naming the step, and refunds it', async () => {
    const before = await call('consent');
    const left = Number(before.headers.get('x-pagejson-credits-remaining'));
    const failed = await call('never');
    expect(failed.status).toBe(502);
    const body = (await failed.json()) as { errors: Array<{ message: string; code: string }> };
    expect(body.errors[0]!.code).toBe('ACTION_FAILED');
    expect(body.errors[0]!.message).toMatch(
      /^browser action failed: step 1 \(click "#nothing-to-accept"\): no element it could click matched within the \d+ ms left of fetch\.actionsTimeoutMs$/,
    );
    expect(Number(failed.headers.get('x-pagejson-credits-remaining'))).toBe(left);
  });
});
