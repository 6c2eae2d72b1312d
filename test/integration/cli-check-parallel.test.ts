import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, ensureBuilt } from '../support/build-once.js';

/**
 * Issue 52, item 8: `check` of 13 endpoints read them in batches of four, each batch waiting for its slowest.
 * The source holds the first endpoint's page until the twelve others have been answered: a check that waits
 * for a batch never gets there (the source lets it go at a fallback instead). The source counts the requests
 * it holds at once, which fetch.perOriginConcurrency bounds.
 */
const PER_ORIGIN = 3;
const IDS = Array.from({ length: 13 }, (_, index) => `ep-${String(index + 1).padStart(2, '0')}`);
let dir: string;
let server: Server;
let inFlight = 0;
let mostAtOnce = 0;
let answered = 0;
/** How the held page was let go: when the others were answered, or at the fallback. */
let held: 'others done' | 'fallback' | undefined;
let releaseHeld: (() => void) | undefined;

beforeAll(async () => {
  await ensureBuilt();
  dir = await mkdtemp(join(tmpdir(), 'pagejson-check-parallel-'));
  server = createServer((req, res) => {
    inFlight += 1;
    mostAtOnce = Math.max(mostAtOnce, inFlight);
    const id = new URL(req.url ?? '/', 'http://x').pathname.slice(1);
    const answer = () => {
      inFlight -= 1;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<html><body><h1>Page ${id}</h1></body></html>`);
      answered += 1;
      if (answered === IDS.length - 1) releaseHeld?.();
    };
    if (id !== IDS[0]) return void setImmediate(answer);
    const fallback = setTimeout(() => releaseHeld?.(), 20_000);
    releaseHeld = () => {
      releaseHeld = undefined;
      clearTimeout(fallback);
      held = answered >= IDS.length - 1 ? 'others done' : 'fallback';
      answer();
    };
    if (answered >= IDS.length - 1) releaseHeld();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await writeFile(
    join(dir, 'pagejson.json'),
    JSON.stringify({ fetch: { allowPrivateNetworks: true, timeoutMs: 60_000, perOriginConcurrency: PER_ORIGIN } }),
  );
  await mkdir(join(dir, 'configs'));
  // Written out of order: the report's order is the ids' own.
  for (const apiId of [...IDS].reverse())
    await writeFile(
      join(dir, 'configs', `${apiId}.json`),
      JSON.stringify({ apiId, url: `${origin}/${apiId}`, structure: [{ name: 'heading', type: 'string', selector: 'h1' }] }),
    );
}, 600_000);
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('check of many endpoints', () => {
  it('checks all 13 in parallel, no more at once on one origin than fetch.perOriginConcurrency, reported in order', async () => {
    const result = await execa(process.execPath, [CLI_BIN, 'check', '--json'], { cwd: dir, reject: false, env: { NO_COLOR: '1' } });
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as { endpoints: Array<{ apiId: string; state: string }> };
    expect(report.endpoints.map((endpoint) => endpoint.apiId)).toEqual(IDS);
    expect(report.endpoints.every((endpoint) => endpoint.state === 'healthy')).toBe(true);
    // The twelve others were read while the first was still waiting for its page.
    expect(held).toBe('others done');
    expect(mostAtOnce).toBeGreaterThan(1);
    expect(mostAtOnce).toBeLessThanOrEqual(PER_ORIGIN);
  }, 120_000);
});
