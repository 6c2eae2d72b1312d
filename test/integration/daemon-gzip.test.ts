import { gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRuntime, type Runtime } from '../../src/core/runtime.js';
import { buildApp, type DaemonApp } from '../../src/daemon/app.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { issueKey, makeProject, pageConfig, type TempProject } from './daemon-support.js';

/**
 * Bodies the cache keeps gzipped are sent as they are to clients that accept gzip (Content-Encoding: gzip,
 * Vary: Accept-Encoding), and unpacked for the others; small bodies (not packed) are never encoded.
 */
let site: FixtureSite;
let temp: TempProject;
let runtime: Runtime;
let app: DaemonApp;
let base: string;
let key: string;

const listing = {
  apiId: 'books',
  url: '',
  caching: true,
  structure: [
    {
      name: 'books',
      type: 'array' as const,
      selector: 'article.product_pod',
      fields: [
        { name: 'title', type: 'string' as const, selector: 'h3 a', attribute: 'title' },
        { name: 'price', type: 'string' as const, selector: '.price_color' },
        { name: 'link', type: 'string' as const, selector: 'h3 a', attribute: 'href' },
        { name: 'availability', type: 'string' as const, selector: '.availability' },
      ],
    },
  ],
};

beforeAll(async () => {
  site = await startFixtureSite();
  temp = await makeProject([
    { ...listing, url: `${site.origin}/listing.html` },
    pageConfig('small', `${site.origin}/daemon/echo?name=gzip`),
  ]);
  runtime = await createRuntime(temp.project, { watch: false });
  app = await buildApp(runtime, { logger: false });
  base = await app.listen({ host: '127.0.0.1', port: 0 });
  ({ key } = await issueKey(runtime.store, { account: 'gzip' }));
});

afterAll(async () => {
  await app?.close();
  await runtime?.close();
  await site?.close();
  await temp?.cleanup();
});

async function get(apiId: string, acceptEncoding?: string) {
  const response = await request(`${base}/external/${apiId}`, {
    headers: { apikey: key, ...(acceptEncoding !== undefined ? { 'accept-encoding': acceptEncoding } : {}) },
  });
  const bytes = Buffer.from(await response.body.arrayBuffer());
  return { status: response.statusCode, headers: response.headers, bytes };
}

describe('gzip on the wire', () => {
  it('sends the stored gzip to a client that accepts it, on the miss and on hits, and the same JSON unpacked to one that does not', async () => {
    const miss = await get('books', 'gzip, deflate, br');
    expect(miss.status).toBe(200);
    expect(miss.headers['x-pagejson-cache']).toBe('MISS');
    expect([miss.headers['content-encoding'], miss.headers.vary]).toEqual(['gzip', 'accept-encoding']);

    const plain = await get('books');
    expect(plain.headers['x-pagejson-cache']).toBe('HIT');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toBe('accept-encoding');
    const json = JSON.parse(plain.bytes.toString('utf8')) as { data: { books: Array<{ title: string }> } };
    expect(json.data.books.length).toBeGreaterThan(10);
    expect(json.data.books[0]!.title).toBe('A Light in the Attic');

    expect(gunzipSync(miss.bytes).equals(plain.bytes)).toBe(true);
    const hit = await get('books', 'gzip');
    expect([hit.headers['x-pagejson-cache'], hit.headers['content-encoding']]).toEqual(['HIT', 'gzip']);
    expect(gunzipSync(hit.bytes).equals(plain.bytes)).toBe(true);
    expect(hit.bytes.length).toBeLessThan(plain.bytes.length / 2);
    expect(Number(hit.headers['content-length'])).toBe(hit.bytes.length);
  });

  it("follows the client's preferences: gzip;q=0, identity only, another coding only, or any coding", async () => {
    await get('books');
    for (const refused of ['gzip;q=0, identity', 'identity', 'br', 'deflate;q=1, gzip;q=0']) {
      const answer = await get('books', refused);
      expect([refused, answer.headers['content-encoding']]).toEqual([refused, undefined]);
      expect(() => JSON.parse(answer.bytes.toString('utf8'))).not.toThrow();
    }
    for (const accepted of ['*', 'br;q=1, gzip;q=0.5', 'GZIP', 'identity;q=0, gzip']) {
      const answer = await get('books', accepted);
      expect([accepted, answer.headers['content-encoding']]).toEqual([accepted, 'gzip']);
    }
  });

  it('a hostile Accept-Encoding (huge, or garbage) is only a header: the JSON comes back unencoded or gzipped, never an error', async () => {
    for (const hostile of [`${'x,'.repeat(3_000)}gzip`, ';;;q=q,,,', '__proto__, constructor;q=1']) {
      const answer = await get('books', hostile);
      expect(answer.status).toBe(200);
      const body = answer.headers['content-encoding'] === 'gzip' ? gunzipSync(answer.bytes) : answer.bytes;
      expect(JSON.parse(body.toString('utf8'))).toHaveProperty('data.books');
    }
  });

  it('never encodes a small body (the cache keeps it as it is)', async () => {
    const answer = await get('small', 'gzip');
    expect(answer.status).toBe(200);
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.headers.vary).toBeUndefined();
    expect(JSON.parse(answer.bytes.toString('utf8'))).toHaveProperty('data.title');
  });
});
