import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiConfigInput } from '../../src/core/config/schema.js';
import { startServer, type RunningServer } from '../../src/daemon/server.js';
import { SHOP_TOTAL } from '../support/site-routes/heal-trust.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { issueKey, makeProject, type TempProject } from './daemon-support.js';

/**
 * Issue 45 (untested area): the daemon's own repair with `heal: "apply"`, on a redesigned page that offers a
 * field's last good values in another part of the page (the review count 14 inside the name "ZenBook 14").
 * What the repair saves must never read that other part: the field stays as it was, while the
 * rest of the repair (names, prices, the pager) is saved. The bound on a repair's work is shown by
 * daemon-hardening.test.ts ("records the repair stopped at its budget").
 */
let site: FixtureSite;
let temp: TempProject;
let server: RunningServer;

beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(async () => {
  await server?.close();
  site.state.delete('shop');
  await site?.close();
  await temp?.cleanup();
});

const shop: ApiConfigInput = {
  apiId: 'shop',
  url: 'PLACEHOLDER/trust/shop',
  // Every request reads the page: the redesign is met at once, not after the cache's 15 minutes.
  caching: false,
  pagination: { next: 'a.next' },
  structure: [
    {
      name: 'products',
      type: 'array',
      selector: 'div.cards > div.card',
      fields: [
        { name: 'name', type: 'string', selector: 'h3.card-name a' },
        { name: 'price', type: 'number', selector: '.card-price', transform: ['number'] },
        { name: 'reviewCount', type: 'integer', selector: '.card-reviews', transform: ['integer'] },
      ],
    },
  ],
};

describe('heal "apply" on a page that offers a field its values elsewhere', () => {
  it('saves the repair without pointing the field at the other part of the page: the field keeps its selector', async () => {
    // Roomy budgets: a busy machine's thread start is not what this measures.
    temp = await makeProject([{ ...shop, url: `${site.origin}/trust/shop` }], {
      heal: 'apply',
      extraction: { timeoutMs: 60_000 },
      fetch: { timeoutMs: 60_000 },
    });
    server = await startServer({ project: temp.project, host: '127.0.0.1', port: 0, watch: false, app: { logger: false } });
    const events: unknown[] = [];
    server.runtime.subscribe((event) => {
      if (event.kind === 'repair') events.push(event);
    });
    const { key } = await issueKey(server.runtime.store);
    const healthy = await fetch(`${server.url}/external/shop`, { headers: { apikey: key } });
    expect(healthy.headers.get('x-pagejson-health')).toBe('healthy');
    expect(((await healthy.json()) as { data: { products: unknown[] } }).data.products).toHaveLength(SHOP_TOTAL);

    site.state.set('shop', '2');
    const changed = await fetch(`${server.url}/external/shop`, { headers: { apikey: key } });
    expect(changed.headers.get('x-pagejson-health')).not.toBe('healthy');
    await server.runtime.repairs.idle();

    expect(events).toMatchObject([{ kind: 'repair', apiId: 'shop', outcome: 'applied' }]);
    const saved = JSON.parse(await readFile(join(temp.root, 'configs/shop.json'), 'utf8')) as {
      revision: number;
      pagination: { next: string };
      structure: Array<{ fields: Array<{ name: string; selector: string }> }>;
    };
    expect(saved.revision).toBe(2);
    const fields = Object.fromEntries(saved.structure[0]!.fields.map((field) => [field.name, field.selector]));
    // Names and the pager repaired; the review count not read out of the names' link.
    expect(fields.name).not.toBe('h3.card-name a');
    expect(fields.reviewCount).not.toBe(fields.name);
    expect(fields.reviewCount).toBe('.card-reviews');
    expect(saved.pagination.next).not.toBe('a.next');
  }, 300_000);
});
