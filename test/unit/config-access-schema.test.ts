import { describe, expect, it } from 'vitest';
import { proxyHasCredentials, proxyLabel, proxyUrlProblem, ProxySchema } from '../../src/core/config/proxy.js';
import { RequestSchema } from '../../src/core/config/request.js';
import { ApiConfigSchema, ProjectSettingsSchema } from '../../src/core/config/schema.js';

const base = { apiId: 'members', url: 'https://example.com/members', structure: [{ name: 'title', type: 'string', selector: 'h1' }] };

function messages(result: { success: boolean; error?: { issues: Array<{ message: string; path: PropertyKey[] }> } }): string[] {
  return result.error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`) ?? [];
}

describe('request in a config', () => {
  it('accepts headers and cookies with ${NAME} templates, kept as written', () => {
    const parsed = ApiConfigSchema.parse({
      ...base,
      request: {
        headers: { Authorization: 'Bearer ${API_TOKEN}', 'X-Client': 'pagejson' },
        cookies: { session: '${SITE_SESSION}' },
        sendToRedirects: true,
      },
    });
    expect(parsed.request).toEqual({
      headers: { Authorization: 'Bearer ${API_TOKEN}', 'X-Client': 'pagejson' },
      cookies: { session: '${SITE_SESSION}' },
      sendToRedirects: true,
    });
  });

  it('refuses malformed placeholders, header names and headers pagejson owns, in words', () => {
    expect(messages(RequestSchema.safeParse({ headers: { Authorization: 'Bearer ${api_token}' } }))).toEqual([
      expect.stringMatching(/^headers\.Authorization: "\$\{api_token\}" is not an environment variable name/),
    ]);
    expect(messages(RequestSchema.safeParse({ headers: { 'Bad Name': 'x' } })).join()).toContain('"Bad Name" cannot be a header name');
    expect(messages(RequestSchema.safeParse({ headers: { Host: 'evil.example' } })).join()).toContain('request.headers cannot set Host');
    expect(messages(RequestSchema.safeParse({ headers: { Cookie: 'a=b' } })).join()).toContain('write cookies under request.cookies');
    expect(messages(RequestSchema.safeParse({ headers: { 'Proxy-Authorization': 'Basic x' } })).join()).toContain('proxy URL');
    expect(messages(RequestSchema.safeParse({ headers: { 'x-a': '1', 'X-A': '2' } })).join()).toContain('given twice');
    expect(messages(RequestSchema.safeParse({ cookies: { sid: 'a b;c' } })).join()).toContain('a cookie value cannot hold');
    expect(RequestSchema.safeParse({ cookies: { sid: 'abc-${SID}' } }).success).toBe(true);
    expect(RequestSchema.safeParse({ header: {} }).success).toBe(false);
  });

  it('never makes "__proto__" a header or cookie name', () => {
    const hostile = JSON.parse('{"headers": {"__proto__": "x"}, "cookies": {"__proto__": "y"}}') as unknown;
    const parsed = RequestSchema.parse(hostile);
    expect(Object.getPrototypeOf(parsed.headers)).toBe(Object.prototype);
    expect(Object.keys(parsed.headers ?? {})).toEqual([]);
    expect(Object.keys(parsed.cookies ?? {})).toEqual([]);
  });
});

describe('proxy in a config and fetch.proxy in pagejson.json', () => {
  it('accepts a list with credentials from the environment, round-robin by default, or false', () => {
    expect(ProxySchema.parse({ urls: ['http://${PROXY_USER}:${PROXY_PASS}@proxy.example:3128'] })).toEqual({
      urls: ['http://${PROXY_USER}:${PROXY_PASS}@proxy.example:3128'],
      rotate: 'round-robin',
    });
    expect(ApiConfigSchema.parse({ ...base, proxy: false }).proxy).toBe(false);
    expect(
      ProjectSettingsSchema.parse({ fetch: { proxy: { urls: ['https://p1:8443', 'http://p2:3128'], rotate: 'sticky' } } }).fetch.proxy,
    ).toEqual({ urls: ['https://p1:8443', 'http://p2:3128'], rotate: 'sticky' });
  });

  it('refuses what cannot be a proxy, in words', () => {
    expect(proxyUrlProblem('socks5://p:1080')).toContain('SOCKS proxies are not supported');
    expect(proxyUrlProblem('proxy.example:3128')).toContain('starts with http://');
    expect(proxyUrlProblem('http://proxy.example:3128/path')).toContain('no path');
    expect(proxyUrlProblem('http://${PROXY_HOST}:${PROXY_PORT}')).toBeUndefined();
    expect(messages(ProxySchema.safeParse({ urls: [] })).join()).toContain('at least one proxy URL');
    expect(messages(ProxySchema.safeParse({ urls: ['http://p:1'], rotate: 'random' })).length).toBeGreaterThan(0);
  });

  it('names a proxy without its credentials, written or from the environment', () => {
    expect(proxyLabel('http://${PROXY_USER}:${PROXY_PASS}@proxy.example:3128')).toBe('http://proxy.example:3128');
    expect(proxyLabel('http://user:hunter2@10.0.0.5:3128/')).toBe('http://10.0.0.5:3128');
    expect(proxyLabel('http://user:p@ss@proxy:1')).toBe('http://proxy:1');
    expect(proxyLabel('https://proxy.example:8443')).toBe('https://proxy.example:8443');
    expect(proxyHasCredentials('http://u:p@h:1')).toBe(true);
    expect(proxyHasCredentials('http://h:1')).toBe(false);
  });
});
