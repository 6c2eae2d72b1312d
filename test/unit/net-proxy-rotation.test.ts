import { describe, expect, it } from 'vitest';
import { FIRST_SKIP_MS, MAX_SKIP_MS, createProxyChooser } from '../../src/core/fetch/net/proxy-rotation.js';
import { bypassesProxy, environmentProxyFor } from '../../src/core/fetch/net/proxy-env.js';
import { throughProxies, proxyFailure } from '../../src/core/fetch/net/proxy-attempts.js';
import type { ProxyList } from '../../src/core/config/proxy.js';
import { rejection } from '../support/rejection.js';

const target = new URL('https://shop.example/catalogue/');
const list = (rotate: ProxyList['rotate'], ...hosts: string[]): ProxyList => ({
  urls: hosts.map((host) => `http://\${PROXY_USER}:\${PROXY_PASS}@${host}:3128`),
  rotate,
});
const ALLOWED = { PAGEJSON_SECRETS: 'PROXY_USER,PROXY_PASS' };
const env = { PROXY_USER: 'u', PROXY_PASS: 'p4ss', ...ALLOWED };

describe('proxy rotation (docs/access.md)', () => {
  it('takes the proxies of a round-robin list in turn, resolving credentials from the environment', () => {
    const chooser = createProxyChooser({ env });
    const firsts = [1, 2, 3, 4].map(() => chooser.candidates(target, { endpoint: 'a', proxy: list('round-robin', 'p1', 'p2', 'p3') })[0]!);
    expect(firsts.map((c) => c.label)).toEqual(['http://p1:3128', 'http://p2:3128', 'http://p3:3128', 'http://p1:3128']);
    expect(firsts[0]!.url.password).toBe('p4ss');
    // Every candidate is in the order to try: the rest of the list follows the first.
    expect(chooser.candidates(target, { proxy: list('round-robin', 'p1', 'p2', 'p3') }).map((c) => c.label)).toEqual([
      'http://p2:3128',
      'http://p3:3128',
      'http://p1:3128',
    ]);
  });

  it('keeps an endpoint on its proxy while it works (sticky), and moves it when it fails', () => {
    const chooser = createProxyChooser({ env });
    const proxy = list('sticky', 'p1', 'p2', 'p3');
    const first = chooser.candidates(target, { endpoint: 'books', proxy })[0]!;
    chooser.succeeded(first, 'books');
    expect(chooser.candidates(target, { endpoint: 'jobs', proxy })[0]!.label).not.toBe(first.label);
    for (let i = 0; i < 3; i += 1) expect(chooser.proxyFor('books', proxy, target)?.label).toBe(first.label);
    chooser.failed(first, 'books');
    const moved = chooser.candidates(target, { endpoint: 'books', proxy })[0]!;
    expect(moved.label).not.toBe(first.label);
    chooser.succeeded(moved, 'books');
    expect(chooser.proxyFor('books', proxy, target)?.label).toBe(moved.label);
  });

  it('skips a failing proxy for 30 s, doubling while it keeps failing, at most 10 minutes, and tries it last meanwhile', () => {
    let now = 0;
    const chooser = createProxyChooser({ env, now: () => now });
    const proxy = list('round-robin', 'p1', 'p2');
    const [p1] = chooser.candidates(target, { proxy });
    chooser.failed(p1!);
    expect(chooser.skippedUntil(p1!)).toBe(FIRST_SKIP_MS);
    expect(chooser.candidates(target, { proxy }).map((c) => c.label)).toEqual(['http://p2:3128', 'http://p1:3128']);
    expect(chooser.candidates(target, { proxy }).map((c) => c.label)).toEqual(['http://p2:3128', 'http://p1:3128']);
    now = FIRST_SKIP_MS + 1;
    expect(chooser.skippedUntil(p1!)).toBeUndefined();
    chooser.failed(p1!);
    expect(chooser.skippedUntil(p1!)).toBe(now + 2 * FIRST_SKIP_MS);
    for (let i = 0; i < 10; i += 1) chooser.failed(p1!);
    expect(chooser.skippedUntil(p1!)).toBe(now + MAX_SKIP_MS);
    chooser.succeeded(p1!);
    expect(chooser.skippedUntil(p1!)).toBeUndefined();
  });

  it('prefers the config, then fetch.proxy, then the environment; false means direct at either level', () => {
    const chooser = createProxyChooser({
      env: { ...env, HTTPS_PROXY: 'http://envproxy:8080' },
      project: list('round-robin', 'projectproxy'),
    });
    expect(chooser.candidates(target, { proxy: list('round-robin', 'configproxy') })[0]!.label).toBe('http://configproxy:3128');
    expect(chooser.candidates(target, {})[0]!.label).toBe('http://projectproxy:3128');
    expect(chooser.candidates(target, { proxy: false })).toEqual([]);
    expect(createProxyChooser({ env: { HTTPS_PROXY: 'http://envproxy:8080' }, project: false }).candidates(target, {})).toEqual([]);
    expect(
      createProxyChooser({ env: { HTTPS_PROXY: 'envproxy:8080' } })
        .candidates(target, {})
        .map((c) => c.url.href),
    ).toEqual(['http://envproxy:8080/']);
  });

  it('fails naming the unset variable of a proxy URL, never its value', () => {
    const chooser = createProxyChooser({ env: { PROXY_USER: 'u', ...ALLOWED } });
    expect(() => chooser.candidates(target, { proxy: list('round-robin', 'p1') })).toThrow(
      'the environment variable PROXY_PASS is not set (used in proxy.urls[0])',
    );
    const fromProject = createProxyChooser({ env: { PROXY_USER: 'u', ...ALLOWED }, project: list('round-robin', 'p1') });
    expect(() => fromProject.candidates(target, {})).toThrow('(used in fetch.proxy.urls[0])');
  });
});

describe("the environment's proxy", () => {
  it('reads HTTPS_PROXY for https pages and HTTP_PROXY for http ones, lower case first', () => {
    expect(environmentProxyFor(new URL('https://a.example/'), { HTTPS_PROXY: 'http://s:1', HTTP_PROXY: 'http://h:1' })).toBe('http://s:1');
    expect(environmentProxyFor(new URL('http://a.example/'), { HTTPS_PROXY: 'http://s:1', HTTP_PROXY: 'http://h:1' })).toBe('http://h:1');
    expect(environmentProxyFor(new URL('https://a.example/'), { HTTP_PROXY: 'http://h:1' })).toBe('http://h:1');
    expect(environmentProxyFor(new URL('https://a.example/'), { https_proxy: 'http://lower:1', HTTPS_PROXY: 'http://upper:1' })).toBe(
      'http://lower:1',
    );
    expect(environmentProxyFor(new URL('https://a.example/'), {})).toBeUndefined();
  });

  it('goes direct to what NO_PROXY names: hosts, their subdomains, a port, or everything', () => {
    expect(bypassesProxy(new URL('https://api.example.com/'), 'localhost, .example.com')).toBe(true);
    expect(bypassesProxy(new URL('https://example.com/'), '*.example.com')).toBe(true);
    expect(bypassesProxy(new URL('https://notexample.com/'), 'example.com')).toBe(false);
    expect(bypassesProxy(new URL('http://127.0.0.1:8080/'), '127.0.0.1:8080')).toBe(true);
    expect(bypassesProxy(new URL('http://127.0.0.1:9090/'), '127.0.0.1:8080')).toBe(false);
    expect(bypassesProxy(new URL('https://example.com/'), 'example.com:443')).toBe(true);
    expect(bypassesProxy(new URL('http://[::1]:80/'), '::1')).toBe(true);
    expect(bypassesProxy(new URL('https://anything.example/'), '*')).toBe(true);
    expect(environmentProxyFor(new URL('https://intranet.corp/'), { HTTPS_PROXY: 'http://p:1', no_proxy: 'corp' })).toBeUndefined();
  });
});

describe('a fetch over a list of proxies', () => {
  it("moves on past proxy failures, stops at the source's own errors, and names every proxy when all fail", async () => {
    const chooser = createProxyChooser({ env });
    const candidates = chooser.candidates(target, { proxy: list('round-robin', 'p1', 'p2') });
    const tried: string[] = [];
    const result = await throughProxies(candidates, chooser, 'a', new AbortController().signal, async (candidate) => {
      tried.push(candidate!.label);
      if (candidate!.label === 'http://p1:3128') throw proxyFailure(candidate!, 'connection refused');
      return 'page';
    });
    expect(result).toBe('page');
    expect(tried).toEqual(['http://p1:3128', 'http://p2:3128']);

    const all = await rejection(
      throughProxies(
        chooser.candidates(target, { proxy: list('round-robin', 'p1', 'p2') }),
        chooser,
        'a',
        new AbortController().signal,
        async (candidate) => {
          throw proxyFailure(candidate!, 'connection refused');
        },
      ),
    );
    expect(all.message).toMatch(/^every proxy failed: http:\/\/p\d:3128 \(connection refused\); http:\/\/p\d:3128 \(connection refused\)$/);
    expect(all.message).not.toContain('p4ss');
  });
});
