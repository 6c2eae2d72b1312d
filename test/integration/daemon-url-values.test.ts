import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../src/daemon/server.js';
import { startFakeLlm } from '../support/fake-llm.js';
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
        {
          name: 'links',
          type: 'array',
          selector: 'ul.links a',
          fields: [
            { name: 'label', type: 'string', selector: ':scope' },
            { name: 'href', type: 'url', selector: ':scope', attribute: 'href' },
          ],
        },
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
    const { data } = (await answer.json()) as {
      data: { script: unknown; links: Array<{ label: string; href: unknown }>; hrefs: unknown[] };
    };
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
    const schema = (await (await fetch(`${server.url}/external/links/schema`, { headers: { apikey: key } })).json()) as {
      data: { properties: { script: { pattern: string } } };
    };
    expect(schema.data.properties.script.pattern).toBe('^https?://');
  });
});

describe('url values a model filled', () => {
  it('are held to the same rule: javascript: and data: are null, list items left out, relative ones made absolute', async () => {
    const llm = await startFakeLlm();
    const project = await makeProject(
      [
        {
          apiId: 'filled',
          url: `${site.origin}/hostile-links.html`,
          caching: false,
          model: 'local',
          structure: [
            { name: 'title', type: 'string', selector: 'h1' },
            // No selector: the model fills these from the page, which can make it answer anything.
            { name: 'homepage', type: 'url' },
            { name: 'mirrors', type: 'array', items: { type: 'url' } },
            { name: 'contact', type: 'object', fields: [{ name: 'site', type: 'url' }] },
          ],
        },
      ],
      { models: { local: { baseURL: llm.baseURL, model: 'fake-model' } } },
    );
    const daemon = await startServer({ project: project.project, host: '127.0.0.1', port: 0, watch: false, app: { logger: false } });
    try {
      llm.script([
        {
          json: {
            homepage: 'javascript:alert(document.cookie)',
            mirrors: ['javascript:alert(1)', 'https://mirror.example/a', 'data:text/html,<script>alert(1)</script>', '/relative'],
            contact__site: ' JavaScript:alert(2)',
          },
        },
      ]);
      const { key } = await issueKey(daemon.runtime.store);
      const answer = await fetch(`${daemon.url}/external/filled`, { headers: { apikey: key } });
      expect(answer.status).toBe(200);
      const { data } = (await answer.json()) as { data: Record<string, unknown> };
      expect(data).toMatchObject({
        homepage: null,
        mirrors: ['https://mirror.example/a', `${site.origin}/relative`],
        contact: { site: null },
      });
      // Taken as it came, not asked for again: the answer was well formed, its links were not.
      expect(llm.requests).toHaveLength(1);
    } finally {
      await daemon.close();
      await project.cleanup();
      await llm.close();
    }
  });
});
