import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiConfigInput } from '../../src/core/config/schema.js';
import { startServer, type RunningServer } from '../../src/daemon/server.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { issueKey, makeProject, type TempProject } from './daemon-support.js';

/**
 * Issue 47 item 4 in the daemon: `heal: "apply"` saves a repair only when the health with it is better than
 * without it and no healthy field fails with it, as `pagejson heal` does. The shop of
 * test/support/site-routes/heal-trust.ts (`/trust/store`) rotates its whole catalogue in a redesign: none of the
 * last good products is on the page, and the only last good value left is the heading's "Laptops", now in the
 * breadcrumb. A repair that moves the heading there and leaves the list empty fixes nothing: it is not saved.
 * The daemon in-process on port 0, one per file.
 */
let site: FixtureSite;
let temp: TempProject;
let server: RunningServer;

beforeAll(async () => {
  site = await startFixtureSite();
});
afterAll(async () => {
  await server?.close();
  site.state.delete('store');
  await site?.close();
  await temp?.cleanup();
});

const store = (origin: string): ApiConfigInput => ({
  apiId: 'store',
  url: `${origin}/trust/store`,
  // Every request reads the page: the redesign is met at once.
  caching: false,
  structure: [
    { name: 'heading', type: 'string', selector: 'h1' },
    {
      name: 'products',
      type: 'array',
      selector: 'div.cards > div.card',
      fields: [
        { name: 'name', type: 'string', selector: 'h3.card-name' },
        { name: 'price', type: 'number', selector: '.card-price', transform: ['number'] },
      ],
    },
  ],
});

describe('heal "apply" never makes things worse', () => {
  it('a repair that repairs none of the failing fields is not saved, and the event says why', async () => {
    temp = await makeProject([store(site.origin)], { heal: 'apply', extraction: { timeoutMs: 60_000 }, fetch: { timeoutMs: 60_000 } });
    server = await startServer({ project: temp.project, host: '127.0.0.1', port: 0, watch: false, app: { logger: false } });
    const events: unknown[] = [];
    server.runtime.subscribe((event) => {
      if (event.kind === 'repair') events.push(event);
    });
    const file = join(temp.root, 'configs/store.json');
    const reviewed = await readFile(file, 'utf8');
    const { key } = await issueKey(server.runtime.store);
    const healthy = await fetch(`${server.url}/external/store`, { headers: { apikey: key } });
    expect(healthy.headers.get('x-pagejson-health')).toBe('healthy');

    site.state.set('store', '2');
    const changed = await fetch(`${server.url}/external/store`, { headers: { apikey: key } });
    expect(changed.headers.get('x-pagejson-health')).toBe('degraded');
    await server.runtime.repairs.idle();

    expect(events).toEqual([
      {
        kind: 'repair',
        apiId: 'store',
        outcome: 'none',
        reason: 'nothing saved: it repairs none of the failing fields (products): the endpoint would stay degraded',
      },
    ]);
    // Nothing written: the reviewed file as it was, and no proposal beside it.
    expect(await readFile(file, 'utf8')).toBe(reviewed);
    await expect(readFile(join(temp.root, 'configs/store.proposed.json'), 'utf8')).rejects.toThrow(/ENOENT/);
  });
});
