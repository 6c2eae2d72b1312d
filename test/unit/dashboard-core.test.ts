import { describe, expect, it } from 'vitest';
import { urlPlaces } from '../../src/core/config/url-template.js';
import { applyEdits } from '../../src/core/edit/operations.js';
import { ApiConfigSchema } from '../../src/core/config/schema.js';
import { usageSeries } from '../../src/core/access/usage-series.js';
import { createDashboardSessions, LOGIN_TOKEN_TTL_MS } from '../../src/daemon/dashboard/sessions.js';

/** The pieces under the dashboard's pages: URL places, usage series, and sign-in tokens and sessions. */
describe('urlPlaces', () => {
  it('lists every path segment and query parameter with its value and variable', () => {
    const config = {
      url: 'https://shop.example/c/{{ category }}/items/?page=2&q=red+shoes&sort={{ sort }}',
      variables: { category: { example: 'tools' }, sort: { example: 'price' } },
    };
    expect(urlPlaces(config)?.places).toEqual([
      { spec: 'path:1', kind: 'path', label: '1', value: 'c', variable: null },
      { spec: 'path:2', kind: 'path', label: '2', value: 'tools', variable: 'category' },
      { spec: 'path:3', kind: 'path', label: '3', value: 'items', variable: null },
      { spec: 'query:page', kind: 'query', label: 'page', value: '2', variable: null },
      { spec: 'query:q', kind: 'query', label: 'q', value: 'red shoes', variable: null },
      { spec: 'query:sort', kind: 'query', label: 'sort', value: 'price', variable: 'sort' },
    ]);
  });

  it('gives specs that --var accepts, so a toggle makes exactly that place dynamic', () => {
    const config = ApiConfigSchema.parse({
      apiId: 'shop',
      url: 'https://shop.example/c/tools?page=2',
      structure: [{ name: 'x', type: 'string', selector: 'h1' }],
    });
    const places = urlPlaces(config)!.places;
    const { config: edited } = applyEdits(config, [
      { kind: 'var', spec: places[1]!.spec, name: 'category' },
      { kind: 'var', spec: places[2]!.spec, name: 'page' },
    ]);
    expect(edited.url).toBe('https://shop.example/c/{{ category }}?page={{ page }}');
    expect(urlPlaces(edited)!.places.map((place) => [place.value, place.variable])).toEqual([
      ['c', null],
      ['tools', 'category'],
      ['2', 'page'],
    ]);
  });

  it('an edit naming an inherited key is refused as unknown, never called', () => {
    const config = ApiConfigSchema.parse({
      apiId: 'shop',
      url: 'https://shop.example/',
      structure: [{ name: 'x', type: 'string', selector: 'h1' }],
    });
    for (const key of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect(() => applyEdits(config, [{ kind: 'set', key, value: 'x' }])).toThrow(`cannot set "${key}"`);
    }
  });
});

describe('usageSeries', () => {
  it('makes one point per bucket, empty ones included, credits split by keyed and keyless rows, model tokens summed', () => {
    const now = new Date('2026-11-23T15:30:00Z');
    const row = (hour: string, keyId: string | null, requests: number, milliCredits: number, tokens = 0) => ({
      day: hour.slice(0, 10),
      hour,
      apiId: 'a',
      keyId,
      requests,
      errors: 0,
      cacheHits: 0,
      milliCredits,
      promptTokens: tokens,
      completionTokens: tokens / 10,
    });
    const points = usageSeries(
      [
        row('2026-11-23T15:00Z', 'k_1', 2, 800, 100),
        row('2026-11-23T15:00Z', null, 0, 250, 1_000),
        row('2026-11-23T13:00Z', 'k_1', 1, 400),
        row('2026-11-20T13:00Z', 'k_1', 9, 9),
      ],
      'hour',
      3,
      now,
    );
    expect(points).toEqual([
      {
        at: '2026-11-23T13:00:00.000Z',
        requests: 1,
        errors: 0,
        cacheHits: 0,
        retrievalMilliCredits: 400,
        generationMilliCredits: 0,
        promptTokens: 0,
        completionTokens: 0,
      },
      {
        at: '2026-11-23T14:00:00.000Z',
        requests: 0,
        errors: 0,
        cacheHits: 0,
        retrievalMilliCredits: 0,
        generationMilliCredits: 0,
        promptTokens: 0,
        completionTokens: 0,
      },
      {
        at: '2026-11-23T15:00:00.000Z',
        requests: 2,
        errors: 0,
        cacheHits: 0,
        retrievalMilliCredits: 800,
        generationMilliCredits: 250,
        promptTokens: 1_100,
        completionTokens: 110,
      },
    ]);
    expect(usageSeries([], 'day', 30, now)).toHaveLength(30);
  });
});

describe('dashboard sessions', () => {
  it('redeems a token once, before it expires, for a session that ends when it should', () => {
    let now = 1_000_000;
    const sessions = createDashboardSessions({ sessionMs: 60_000, now: () => now });
    const { token } = sessions.issueLoginToken();
    const signed = sessions.redeem(token)!;
    expect(signed.id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(sessions.redeem(token)).toBeUndefined();
    expect(sessions.find(signed.id)).toBe(signed.session);
    expect(sessions.csrfMatches(signed.session, signed.session.csrf)).toBe(true);
    expect(sessions.csrfMatches(signed.session, `${signed.session.csrf.slice(0, -1)}x`)).toBe(false);
    expect(sessions.csrfMatches(signed.session, undefined)).toBe(false);
    now += 60_001;
    expect(sessions.find(signed.id)).toBeUndefined();

    const late = sessions.issueLoginToken().token;
    now += LOGIN_TOKEN_TTL_MS + 1;
    expect(sessions.redeem(late)).toBeUndefined();
  });

  it('keeps a bounded number of pending tokens, and ignores ids that are not its shape', () => {
    const sessions = createDashboardSessions({ sessionMs: 60_000 });
    const first = sessions.issueLoginToken().token;
    for (let index = 0; index < 100; index += 1) sessions.issueLoginToken();
    expect(sessions.redeem(first)).toBeUndefined();
    for (const id of [undefined, '', '__proto__', 'constructor', 'A'.repeat(43), 'x'.repeat(10_000)])
      expect(sessions.find(id)).toBeUndefined();
    expect(() => sessions.end('__proto__')).not.toThrow();
  });
});
