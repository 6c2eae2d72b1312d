import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createMemoryBodies } from '../../src/core/storage/memory-bodies.js';

const jsonBody = (id: number): Buffer =>
  Buffer.from(JSON.stringify({ data: { id, items: Array.from({ length: 40 }, (_, i) => ({ name: `Item ${i} of ${id}`, price: i * 3, url: `https://example.test/${id}/${i}` })) }, errors: null }));

describe('memory bodies (gzipped in memory, the ones read lately also as they are)', () => {
  it('packs a JSON body, keeps its bytes hot, drops them when it cools and unpacks the same bytes on the next read', () => {
    const bodies = createMemoryBodies(64 * 1024); // 8 KB of hot bytes: about two of these bodies
    const first = bodies.make(jsonBody(0), 1);
    expect(first.packed).toBe(true);
    expect(first.stored.length).toBeLessThan(jsonBody(0).length / 3);
    expect(bodies.bytesOf(first)).toBe(first.raw); // hot: no unpacking
    for (let id = 1; id <= 5; id += 1) bodies.make(jsonBody(id), 1);
    expect(first.raw).toBeUndefined(); // cooled: only the gzip is kept
    expect(bodies.hotBytes).toBeLessThanOrEqual(8 * 1024);
    const unpacked = bodies.bytesOf(first);
    expect(unpacked.equals(jsonBody(0))).toBe(true);
    expect(first.raw).toBe(unpacked); // warm again
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
