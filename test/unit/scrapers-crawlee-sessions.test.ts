import { describe, expect, it } from 'vitest';
import { BLOCKED_STATUSES, createSessionPool } from '../../src/core/fetch/scrapers/crawlee-sessions.js';

/** Scraper 2's fingerprint sessions: a new identity per request until the pool is full, blocked ones retired. */
describe('createSessionPool', () => {
  it('creates sessions until the pool is full, then reuses them', () => {
    const pool = createSessionPool({ maxSize: 3, maxUses: 50, random: () => 0 });
    const taken = Array.from({ length: 3 }, () => pool.take());
    for (const session of taken) pool.release(session, false);
    expect(new Set(taken).size).toBe(3);
    expect(pool.size()).toBe(3);
    expect(taken).toContain(pool.take());
    expect(pool.size()).toBe(3);
  });

  it('retires a blocked session and gives a retry another identity', () => {
    const pool = createSessionPool({ maxSize: 2, maxUses: 50, random: () => 0 });
    const first = pool.take();
    const second = pool.take();
    pool.release(second, false);
    pool.release(first, true);
    expect(pool.size()).toBe(1);
    const retry = pool.take(first);
    expect(retry).not.toBe(first);
    expect(retry.token).not.toBe(first.token);
    expect(retry.cookieJar).not.toBe(first.cookieJar);
  });

  it('never hands out the session to avoid while another can be had', () => {
    const pool = createSessionPool({ maxSize: 2, maxUses: 50, random: () => 0 });
    const [a, b] = [pool.take(), pool.take()];
    pool.release(a, false);
    pool.release(b, false);
    for (let i = 0; i < 10; i += 1) expect(pool.take(a)).toBe(b);
  });

  it('replaces a session after its use limit, which bounds what its cookie jar gathers', () => {
    const pool = createSessionPool({ maxSize: 1, maxUses: 3 });
    const session = pool.take();
    for (let use = 0; use < 3; use += 1) pool.release(session, false);
    expect(pool.size()).toBe(0);
    expect(pool.take()).not.toBe(session);
  });

  it('treats 401, 403 and 429 as a blocked identity, as Crawlee does', () => {
    expect([401, 403, 429].every((status) => BLOCKED_STATUSES.has(status))).toBe(true);
    expect([404, 500, 503].some((status) => BLOCKED_STATUSES.has(status))).toBe(false);
  });
});
