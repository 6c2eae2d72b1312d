import { describe, expect, it } from 'vitest';
import { accessRows, displayProxyUrl, withAccessShown } from '../../src/core/config/access-display.js';
import { ApiConfigSchema, type ApiConfig } from '../../src/core/config/schema.js';
import { refuseLiteralCredentials } from '../../src/core/edit/access-edit.js';
import { describeChanges } from '../../src/core/edit/describe-changes.js';
import { applyEdits } from '../../src/core/edit/operations.js';

const base: ApiConfig = ApiConfigSchema.parse({
  apiId: 'members',
  url: 'https://example.com/members',
  structure: [{ name: 'title', type: 'string', selector: 'h1' }],
});
const set = (config: ApiConfig, key: string, value: string) => applyEdits(config, [{ kind: 'set', key, value }]).config;

describe('edit --set on request and proxy', () => {
  it('sets and removes headers and cookies by name, as templates', () => {
    let config = set(base, 'request.headers.Authorization', 'Bearer ${API_TOKEN}');
    config = set(config, 'request.cookies.session', '${SITE_SESSION}');
    expect(config.request).toEqual({ headers: { Authorization: 'Bearer ${API_TOKEN}' }, cookies: { session: '${SITE_SESSION}' } });
    // Header names are case-insensitive: a new spelling replaces the old entry.
    config = set(config, 'request.headers.authorization', 'Bearer ${OTHER_TOKEN}');
    expect(config.request?.headers).toEqual({ authorization: 'Bearer ${OTHER_TOKEN}' });
    config = set(set(config, 'request.headers.authorization', 'off'), 'request.cookies.session', '');
    expect(config.request).toBeUndefined();
  });

  it('refuses what the schema refuses, in words', () => {
    expect(() => set(base, 'request.headers.Authorization', 'Bearer ${api_token}')).toThrow('is not an environment variable name');
    expect(() => set(base, 'request.headers.Host', 'x')).toThrow('request.headers cannot set Host');
    expect(() => set(base, 'request.headers.Bad Name', 'x')).toThrow('cannot be a header name');
    expect(() => set(base, 'proxy', 'socks5://p:1080')).toThrow('SOCKS proxies are not supported');
    expect(() => set(base, 'proxy.rotate', 'sticky')).toThrow('set the proxy URLs before their rotation');
  });

  it('sets proxies from a list or JSON, false for direct, default to remove', () => {
    let config = set(base, 'proxy', 'http://${PROXY_USER}:${PROXY_PASS}@p1:3128, http://p2:3128');
    expect(config.proxy).toEqual({ urls: ['http://${PROXY_USER}:${PROXY_PASS}@p1:3128', 'http://p2:3128'], rotate: 'round-robin' });
    config = set(config, 'proxy.rotate', 'sticky');
    expect(config.proxy).toMatchObject({ rotate: 'sticky' });
    expect(set(config, 'proxy', '{"urls":["http://p3:3128"],"rotate":"sticky"}').proxy).toEqual({
      urls: ['http://p3:3128'],
      rotate: 'sticky',
    });
    expect(set(config, 'proxy', 'false').proxy).toBe(false);
    expect(set(config, 'proxy', 'default').proxy).toBeUndefined();
  });

  it('says what changed with written-in credentials masked', () => {
    const after = set(
      set(set(base, 'request.headers.Authorization', 'Bearer abc123literal'), 'request.headers.X-Client', 'pagejson'),
      'proxy',
      'http://user:hunter2@p1:3128',
    );
    const text = describeChanges(base, after).map((change) => change.text);
    expect(text).toEqual([
      'request header Authorization added ("Bearer ••••")',
      'request header X-Client added ("pagejson")',
      'proxy set to {"urls":["http://user:••••@p1:3128"],"rotate":"round-robin"}',
    ]);
    expect(text.join()).not.toContain('abc123literal');
    expect(text.join()).not.toContain('hunter2');
  });
});

describe('showing request and proxy', () => {
  const config = ApiConfigSchema.parse({
    ...base,
    request: {
      headers: { Authorization: 'Bearer ${API_TOKEN}', 'X-Api-Key': 'literal-key-1', Accept: 'text/html' },
      cookies: { session: 'literal-cookie', theme: '${THEME}' },
    },
    proxy: { urls: ['http://${PROXY_USER}:${PROXY_PASS}@p1:3128', 'http://user:literal-pass@p2:3128'] },
  });

  it('keeps templates and masks literal credentials', () => {
    const shown = withAccessShown(config);
    expect(shown.request).toEqual({
      headers: { Authorization: 'Bearer ${API_TOKEN}', 'X-Api-Key': '••••', Accept: 'text/html' },
      cookies: { session: '••••', theme: '${THEME}' },
    });
    expect(shown.proxy).toEqual({
      urls: ['http://${PROXY_USER}:${PROXY_PASS}@p1:3128', 'http://user:••••@p2:3128'],
      rotate: 'round-robin',
    });
    expect(JSON.stringify(accessRows(config))).not.toMatch(/literal-(key|cookie|pass)/);
    expect(displayProxyUrl('http://p3:3128')).toBe('http://p3:3128');
  });
});

describe('the dashboard takes credentials as templates only', () => {
  it('refuses a literal token, cookie or proxy password, and lets templates and plain headers through', () => {
    expect(() => refuseLiteralCredentials([{ kind: 'set', key: 'request.headers.Authorization', value: 'Bearer abc' }])).toThrow(
      'write the credential as ${NAME}',
    );
    expect(() => refuseLiteralCredentials([{ kind: 'set', key: 'request.cookies.sid', value: 'abc' }])).toThrow();
    expect(() => refuseLiteralCredentials([{ kind: 'set', key: 'proxy', value: '{"urls":["http://u:secret@p:1"]}' }])).toThrow();
    expect(() => refuseLiteralCredentials([{ kind: 'set', key: 'request', value: '{"headers":{"X-Api-Key":"abc"}}' }])).toThrow();
    expect(() =>
      refuseLiteralCredentials([
        { kind: 'set', key: 'request.headers.Authorization', value: 'Bearer ${API_TOKEN}' },
        { kind: 'set', key: 'request.headers.Accept-Language', value: 'fr' },
        { kind: 'set', key: 'request.cookies.sid', value: 'off' },
        { kind: 'set', key: 'proxy', value: 'http://${U}:${P}@p:1,http://p2:1' },
      ]),
    ).not.toThrow();
  });
});
