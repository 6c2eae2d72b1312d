import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/daemon/server.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { issueKey, makeProject, type TempProject } from './daemon-support.js';

/**
 * `url` values from a hostile page (issue 40, extras): a consumer that puts a `url` field into a link must
 * never receive `javascript:` (or `data:`, `vbscript:`) from the page. Only http(s) URLs are values.
 */
let site: FixtureSite;
let temp: TempProject;
let server: RunningServer;

beforeAll(async () => {
  site = await startFixtureSite();
  temp = await makeProject([
    {
      apiId: 'links',
      url: `${site.origin}/hostile-links.html`,
      caching: false,
      structure: [
        { name: 'script', type: 'url', selector: 'a.script', attribute: 'href' },
        { name: 'links', type: 'array', selector: 'ul.links a', fields: [{ name: 'label', type: 'string', selector: ':scope' }, { name: 'href', type: 'url', selector: ':scope', attribute: 'href' }] },
        { name: 'hrefs', type: 'array', selector: 'ul.links a', items: { type: 'url', attribute: 'href' } },
      ],
    },
  ]);
  server = await startServer({ project: temp.project, host: '127.0.0.1', port: 0, watch: false, app: { logger: false } });
});
afterAll(async () => {
  await server?.close();
  await temp?.cleanup();
  await site?.close();
});

describe('url values', () => {
  it('are http(s) URLs or null, whatever scheme the page wrote', async () => {
    const { key } = await issueKey(server.runtime.store);
    const answer = await fetch(`${server.url}/external/links`, { headers: { apikey: key } });
    expect(answer.status).toBe(200);
    const { data } = (await answer.json()) as { data: { script: unknown; links: Array<{ label: string; href: unknown }>; hrefs: unknown[] } };
    expect(data.script).toBeNull();
    expect(data.links.map((link) => [link.label, link.href])).toEqual([
      ['A relative link', `${site.origin}/listing.html`],
      ['Script', null],
      ['Mixed case, leading spaces', null],
      ['A tab inside the scheme', null],
      ['Data', null],
      ['VBScript', null],
      ['An absolute link', 'https://shop.example/item/7'],
    ]);
    // Array items that come out empty are left out.
    expect(data.hrefs).toEqual([`${site.origin}/listing.html`, 'https://shop.example/item/7']);
    // The schema says so too.
    const schema = (await (await fetch(`${server.url}/external/links/schema`, { headers: { apikey: key } })).json()) as { data: { properties: { script: { pattern: string } } } };
    expect(schema.data.properties.script.pattern).toBe('^https?://');
  });
});
