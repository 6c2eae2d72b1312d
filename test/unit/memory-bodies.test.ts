import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createMemoryBodies } from '../../src/core/cache/memory-bodies.js';

const jsonBody = (id: number): Buffer =>
  Buffer.from(
    JSON.stringify({
      data: {
        id,
        items: Array.from({ length: 40 }, (_, i) => ({ name: `Item ${i} of ${id}`, price: i * 3, url: `https://example.test/${id}/${i}` })),
      },
      errors: null,
    }),
  );

describe('memory bodies (gzipped in memory, the ones read lately also as they are)', () => {
  it('packs a JSON body, answers from its fresh bytes, drops them when newer entries come and unpacks the same bytes on the next read', () => {
    const bodies = createMemoryBodies(1024 * 1024); // 128 KB kept as they are, 16 KB of it fresh: five of these bodies
    const first = bodies.make(jsonBody(0), 1);
    expect(first.packed).toBe(true);
    expect(first.stored.length).toBeLessThan(jsonBody(0).length / 3);
    const fresh = first.raw;
    expect(fresh?.equals(jsonBody(0))).toBe(true);
    expect(bodies.bytesOf(first)).toBe(fresh); // fresh: no unpacking
    for (let id = 1; id <= 6; id += 1) bodies.make(jsonBody(id), 1);
    expect(first.raw).toBeUndefined(); // newer entries took the fresh part: only the gzip is kept
    const unpacked = bodies.bytesOf(first);
    expect(unpacked.equals(jsonBody(0))).toBe(true);
    expect(first.raw).toBe(unpacked); // hot now
  });

  it('keeps a burst of new entries to the fresh part, and a hot entry through it', () => {
    const bodies = createMemoryBodies(1024 * 1024);
    const read = bodies.make(jsonBody(0), 1);
    for (let id = 1; id <= 6; id += 1) bodies.make(jsonBody(id), 1);
    const hotBytes = bodies.bytesOf(read); // read again after it left the fresh part: hot
    // 200 fills (~560 KB of bodies): once the hot part would have kept their last 112 KB beside their gzip.
    const made = Array.from({ length: 200 }, (_, i) => bodies.make(jsonBody(100 + i), 1));
    expect(bodies.freshBytes).toBeLessThanOrEqual(16 * 1024);
    expect(bodies.hotBytes - bodies.freshBytes).toBe(hotBytes.length);
    expect(made.filter((entry) => entry.raw !== undefined).length).toBeLessThanOrEqual(5);
    expect(made.at(-1)?.raw).toBeDefined(); // the newest answers its requests without unpacking
    expect(read.raw).toBe(hotBytes); // fills do not push a read entry out
  });

  it('keeps small and incompressible bodies as they are', () => {
    const bodies = createMemoryBodies(1024 * 1024);
    const small = bodies.make(Buffer.from('{"data":{"a":1},"errors":null}'), 1);
    const random = bodies.make(randomBytes(4_000), 1);
    for (const entry of [small, random]) {
      expect(entry.packed).toBe(false);
      expect(entry.raw).toBe(entry.stored);
      expect(bodies.bytesOf(entry)).toBe(entry.stored);
    }
    expect(bodies.hotBytes).toBe(0);
  });

  it('forgets the hot bytes of an entry the cache let go, and serves a body larger than the hot part without keeping it', () => {
    const bodies = createMemoryBodies(16 * 1024); // 2 KB hot
    const entry = bodies.make(jsonBody(7), 1);
    expect(entry.packed).toBe(true);
    expect(entry.raw).toBeUndefined(); // a 4 KB body does not fit 2 KB of hot bytes
    expect(bodies.bytesOf(entry).equals(jsonBody(7))).toBe(true);
    expect(bodies.hotBytes).toBe(0);
    const roomy = createMemoryBodies(1024 * 1024);
    const kept = roomy.make(jsonBody(8), 1);
    expect(roomy.hotBytes).toBeGreaterThan(0);
    roomy.forget(kept);
    expect(roomy.hotBytes).toBe(0);
    expect(kept.raw).toBeUndefined();
  });
});

describe('memory bodies: what a kept body holds', () => {
  it('a packed body and an unpacked one each own a buffer of their own size, not a view of a larger one', () => {
    const bodies = createMemoryBodies(1024 * 1024);
    const entry = bodies.make(jsonBody(3), 1);
    expect(entry.packed).toBe(true);
    expect(entry.stored.buffer.byteLength).toBe(entry.stored.length);
    bodies.forget(entry);
    const unpacked = bodies.bytesOf(entry);
    expect(unpacked.buffer.byteLength).toBe(unpacked.length);
  });
});
