import { request, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProxyCandidate } from '../../src/core/fetch/net/proxy-rotation.js';
import { createChainedGuards, type ChainedGuards } from '../../src/core/fetch/scrapers/browser-access.js';
import type { GuardProxy } from '../../src/core/fetch/scrapers/browser-guard-proxy.js';
import { launchBrowser, type RunningBrowser } from '../../src/core/fetch/scrapers/browser-launch.js';
import { renderInOwnContext } from '../../src/core/fetch/scrapers/browser-render.js';
import { CHROMIUM_PATH, skipBrowserTests } from '../support/chromium.js';
import { startForwardProxy, type ForwardProxy } from '../support/forward-proxy.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';

/**
 * Scraper 3's guard proxies serve only the Chromium they were started for (issue 45, item 3): the browser,
 * given the per-launch credential through Playwright's proxy settings, renders through them; another local
 * client gets 407 and reaches neither the source nor the upstream proxy whose credentials the guard adds.
 */
const skip = skipBrowserTests();
const UPSTREAM_USER = 'operator';
const UPSTREAM_PASS = 'upstr3am-s3cret-Kx';

let site: FixtureSite;
let upstream: ForwardProxy;
let running: RunningBrowser;
let chained: ChainedGuards;
let chainedGuard: GuardProxy;

beforeAll(async () => {
  if (skip) return;
  [site, upstream, running] = await Promise.all([
    startFixtureSite(),
    startForwardProxy({ username: UPSTREAM_USER, password: UPSTREAM_PASS }),
    launchBrowser(CHROMIUM_PATH, true),
  ]);
  chained = createChainedGuards(true);
  const candidate: ProxyCandidate = {
    url: new URL(upstream.urlWith(UPSTREAM_USER, UPSTREAM_PASS)),
    label: upstream.url,
    key: 'test:upstream',
  };
  chainedGuard = await chained.for(candidate);
}, 60_000);

afterAll(async () => {
  await Promise.all([running?.close(), chained?.close(), site?.close(), upstream?.close()]);
});

/** A local client that is not the browser: a plain request or a CONNECT to the guard, without its credential. */
function strangerRequest(guard: GuardProxy, method: 'GET' | 'CONNECT', target: string): Promise<IncomingMessage> {
  const { hostname, port } = new URL(guard.url);
  return new Promise((resolve, reject) => {
    const sent = request({ host: hostname, port, method, path: target, headers: { host: new URL(guard.url).host } });
    sent.on('response', (response: IncomingMessage) => {
      response.resume();
      resolve(response);
    });
    sent.on('connect', (response: IncomingMessage, socket) => {
      socket.destroy();
      resolve(response);
    });
    sent.on('error', reject);
    sent.end();
  });
}

function render(guard: GuardProxy, viaContext: boolean) {
  const controller = new AbortController();
  return renderInOwnContext(running.browser, {
    url: `${site.origin}/listing.html`,
    deadlineAt: Date.now() + 30_000,
    signal: controller.signal,
    maxBytes: 1024 * 1024,
    timeoutMs: 30_000,
    proxy: guard,
    ...(viaContext ? { contextProxy: guard.browserProxy } : {}),
  });
}

describe.skipIf(skip)('scraper 3 guard proxy credential', () => {
  it('the launched browser renders through its guard; another local client is refused with 407', async () => {
    site.resetHits();
    const page = await render(running.proxy, false);
    expect(page.status).toBe(200);
    expect(page.html).toContain('<html');
    const rendered = site.hitCount('/listing.html');
    expect(rendered).toBeGreaterThan(0);

    const plain = await strangerRequest(running.proxy, 'GET', `${site.origin}/listing.html`);
    expect(plain.statusCode).toBe(407);
    const tunnel = await strangerRequest(running.proxy, 'CONNECT', `127.0.0.1:${site.port}`);
    expect(tunnel.statusCode).toBe(407);
    // Not an open egress proxy: the stranger's requests never reached the source.
    expect(site.hitCount('/listing.html')).toBe(rendered);
  });

  it('a guard chained to an upstream proxy renders for its context and lends the upstream credentials to nobody else', async () => {
    upstream.reset();
    const page = await render(chainedGuard, true);
    expect(page.status).toBe(200);
    expect(upstream.countTo('/listing.html')).toBeGreaterThan(0);

    upstream.reset();
    const plain = await strangerRequest(chainedGuard, 'GET', `${site.origin}/listing.html`);
    expect(plain.statusCode).toBe(407);
    const tunnel = await strangerRequest(chainedGuard, 'CONNECT', `127.0.0.1:${site.port}`);
    expect(tunnel.statusCode).toBe(407);
    // Nothing was sent upstream on the stranger's behalf, with or without the operator's credentials.
    expect(upstream.forwarded).toHaveLength(0);
    expect(upstream.refused).toBe(0);
  });
});
