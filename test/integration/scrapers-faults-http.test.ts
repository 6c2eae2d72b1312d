import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PagejsonError } from '../../src/core/shared/errors.js';
import { createHttpScraper } from '../../src/core/fetch/scrapers/http.js';
import type { Scraper } from '../../src/core/fetch/scrapers/types.js';
import { FAULT_CASES, FAULT_SCRAPER_OPTIONS } from '../support/faults.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { rejection } from '../support/rejection.js';

/** Each case's test timeout: a generous bound that only turns a hang into a failure; timings are never asserted. */
const HANG_BOUND_MS = FAULT_SCRAPER_OPTIONS.timeoutMs + 5_000;

/** The exact short reasons of scraper 1 (the shared table only pins what every scraper can promise). */
const HTTP_REASONS: Record<string, string | RegExp> = {
  '/faults/hang': 'timed out after 1500 ms',
  '/faults/drip': 'timed out after 1500 ms',
  // A reset reaches undici either as ECONNRESET or as the peer closing mid-body, depending on timing.
  '/faults/reset': /^connection (reset|closed before the response was complete)$/,
  '/faults/500': 'HTTP 500',
  '/faults/404': 'HTTP 404',
  '/faults/lying-length': 'connection closed before the response was complete',
  '/faults/huge': 'response is larger than 1048576 bytes',
  '/faults/huge-announced': 'response is larger than 1048576 bytes',
  '/faults/redirect-loop': 'redirect loop',
  '/faults/redirect-chain': 'too many redirects',
  '/faults/redirect-metadata': 'address 169.254.169.254 is not public',
  '/faults/not-html': 'content type application/pdf is not HTML',
  '/faults/bad-gzip': 'could not decompress the response',
};

/** Waits (bounded) for the site's side of sockets to close: the close comes from another socket's end. */
async function settles(predicate: () => boolean, withinMs: number): Promise<boolean> {
  await vi.waitFor(() => expect(predicate()).toBe(true), { timeout: withinMs, interval: 20 }).catch(() => undefined);
  return predicate();
}

describe('http scraper against a misbehaving source', () => {
  let site: FixtureSite;
  let scraper: Scraper;

  beforeAll(async () => {
    site = await startFixtureSite();
    scraper = createHttpScraper(FAULT_SCRAPER_OPTIONS);
  });
  afterAll(async () => {
    await scraper.close();
    await site.close();
  });

  it.each(FAULT_CASES)(
    '$path ($description) → $code',
    async ({ path, code, reason }) => {
      const outcome = await scraper.fetch({ url: `${site.origin}${path}` }).then(
        () => 'no error',
        (error: unknown) => error,
      );
      expect(outcome).toBeInstanceOf(PagejsonError);
      const error = outcome as PagejsonError;
      expect(error.code).toBe(code);
      expect(error.message).toMatch(reason);
      const exact = HTTP_REASONS[path];
      if (exact instanceof RegExp) expect(error.message).toMatch(exact);
      else expect(error.message).toBe(exact);
    },
    HANG_BOUND_MS,
  );

  it('still fetches a good page afterwards: the process and the agent stay healthy', async () => {
    const result = await scraper.fetch({ url: `${site.origin}/listing.html` });
    expect(result.status).toBe(200);
  });

  it('refuses a direct fetch of the link-local metadata address even with private networks allowed', async () => {
    // allowPrivateNetworks is true here (the fixture site is loopback); link-local stays refused regardless.
    const error = await rejection(scraper.fetch({ url: 'http://169.254.169.254/latest/meta-data/' }));
    expect(error).toBeInstanceOf(PagejsonError);
    expect((error as PagejsonError).code).toBe('FETCH_BLOCKED_ADDRESS');
  });

  it('leaves no socket open once the scraper is closed', async () => {
    await scraper.close();
    expect(await settles(() => site.openSockets() === 0, 5_000)).toBe(true);
  });

  it('releases the connection of a broken response by itself, without waiting for close', async () => {
    const own = createHttpScraper(FAULT_SCRAPER_OPTIONS);
    // The server-side sockets that carried the broken responses; idle keep-alive sockets are not leaks.
    const faultSockets = new Set<Socket>();
    const track = (req: IncomingMessage) => {
      if (req.url?.startsWith('/faults/')) faultSockets.add(req.socket);
    };
    site.server.on('request', track);
    try {
      for (const path of [
        '/faults/hang',
        '/faults/drip',
        '/faults/reset',
        '/faults/lying-length',
        '/faults/huge',
        '/faults/huge-announced',
      ]) {
        await expect(own.fetch({ url: `${site.origin}${path}` })).rejects.toBeInstanceOf(PagejsonError);
      }
      expect(faultSockets.size).toBeGreaterThan(0);
      expect(await settles(() => [...faultSockets].every((socket) => socket.destroyed), 3_000)).toBe(true);
    } finally {
      site.server.off('request', track);
      await own.close();
    }
    expect(await settles(() => site.openSockets() === 0, 5_000)).toBe(true);
  });
});
