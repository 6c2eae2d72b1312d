import { describe, expect, it } from 'vitest';
import { createSessionStore } from '../../src/core/fetch/net/session-store.js';

describe('session store', () => {
  it('shares one handshake between concurrent first requests and reuses it', async () => {
    const store = createSessionStore();
    let handshakes = 0;
    // The handshake stays in flight until the test lets it finish: both requests come while it runs.
    let finishHandshake!: () => void;
    const handshakeDone = new Promise<void>((resolve) => (finishHandshake = resolve));
    const establish = async () => {
      handshakes += 1;
      await handshakeDone;
    };
    const both = Promise.all([store.get('http://o', establish), store.get('http://o', establish)]);
    finishHandshake();
    const [a, b] = await both;
    expect(handshakes).toBe(1);
    expect(a.session).toBe(b.session);
    expect(a.reused).toBe(false);
    expect(b.reused).toBe(false);
    const later = await store.get('http://o', establish);
    expect(later).toEqual({ session: a.session, reused: true });
    expect(handshakes).toBe(1);
  });

  it('expires a session after its time to live', async () => {
    let now = 0;
    const store = createSessionStore({ ttlMs: 1_000, now: () => now });
    let handshakes = 0;
    const establish = async () => {
      handshakes += 1;
    };
    const first = await store.get('o', establish);
    now = 999;
    expect((await store.get('o', establish)).session).toBe(first.session);
    now = 1_000;
    const renewed = await store.get('o', establish);
    expect(renewed.session).not.toBe(first.session);
    expect(renewed.reused).toBe(false);
    expect(handshakes).toBe(2);
  });

  it('forgets an invalidated session but keeps a newer one', async () => {
    const store = createSessionStore();
    const establish = async () => undefined;
    const old = (await store.get('o', establish)).session;
    store.invalidate('o', old);
    const fresh = (await store.get('o', establish)).session;
    expect(fresh).not.toBe(old);
    store.invalidate('o', old);
    expect((await store.get('o', establish)).session).toBe(fresh);
  });

  it('does not remember a failed handshake', async () => {
    const store = createSessionStore();
    await expect(store.get('o', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    const ok = await store.get('o', async () => undefined);
    expect(ok.reused).toBe(false);
  });
});
