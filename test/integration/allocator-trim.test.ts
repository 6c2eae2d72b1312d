import { execa } from 'execa';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it, vi } from 'vitest';
import { allocatorTrims, loadAllocator, startAllocatorTrimmer } from '../../src/daemon/allocator-trim.js';

/**
 * The allocator trimmer gives back to the system the memory glibc keeps after a burst: short-lived page-sized
 * buffers freed between long-lived small ones leave holes in the heap that glibc never returns by itself.
 */
const FRAGMENT = `
  const { freeBytes, trim } = require(process.argv[1]);
  const { readFileSync } = require('node:fs');
  const rss = () => Number(/VmRSS:\\s+(\\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) * 1024;
  // 1,200 page-sized buffers (below the size glibc maps on its own); every other one stays.
  const pages = [];
  for (let i = 0; i < 1200; i += 1) pages.push(Buffer.allocUnsafeSlow(96 * 1024).fill(1));
  const kept = pages.filter((_, i) => i % 2 === 1);
  pages.length = 0;
  globalThis.gc(); globalThis.gc();
  const before = rss(), free = freeBytes();
  const released = trim();
  process.stdout.write(JSON.stringify({ before, after: rss(), free, released, kept: kept.length }));
`;

describe('the allocator trimmer', () => {
  it('is built on this machine, and returns the holes a burst left to the system', async () => {
    const allocator = loadAllocator();
    expect(allocator).toBeDefined();
    const addon = require.resolve('../../native/malloc-trim/build/Release/malloc_trim.node');
    const { stdout } = await execa(process.execPath, ['--expose-gc', '-e', FRAGMENT, addon]);
    const { before, after, free, released } = JSON.parse(stdout) as { before: number; after: number; free: number; released: boolean };
    // ~56 MB of freed pages sat between the kept ones: glibc held them, counted in RSS, until the trim.
    expect(free).toBeGreaterThan(40 * 1024 * 1024);
    expect(released).toBe(true);
    expect(before - after).toBeGreaterThan(30 * 1024 * 1024);
  });

  it('trims once the free bytes grew, and not again until they grow again', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const allocator = loadAllocator()!;
    const start = allocatorTrims().trims;
    // The trimmer's looks run on the fake clock: `look(n)` is exactly n looks. The memory is real, and V8
    // frees dropped buffers on a background thread: what it does is waited for with real time (expect.poll).
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const trimmer = startAllocatorTrimmer({ intervalMs: 20, minGrowthBytes: 8 * 1024 * 1024 });
    const look = (times = 1) => vi.advanceTimersByTime(20 * times);
    const trimsAfterLook = () => {
      look();
      return allocatorTrims().trims;
    };
    try {
      // Nothing freed yet: a few looks, no trim.
      look(6);
      expect(allocatorTrims().trims).toBe(start);
      // 400 page-sized buffers, every other one dropped: ~19 MB of holes between the ones that stay.
      const kept = fragment();
      gc();
      await expect.poll(trimsAfterLook, { timeout: 5_000, interval: 20 }).toBeGreaterThan(start);
      // V8 frees dropped buffers' memory on a background thread after the collection, so the holes can appear
      // in two steps a trim apart (CI once saw two trims here). Once the free bytes stop moving, the free
      // chunks stay free after a trim (only their pages went): no further trim without new growth.
      await freeBytesSettled(allocator);
      look();
      const afterBurst = allocatorTrims().trims;
      look(15);
      expect(allocatorTrims().trims).toBe(afterBurst);
      // A second burst grows the free bytes again: one more trim.
      // (It reuses the first burst's free chunks, so the trimmer must look while they are taken.)
      const pagesAgain = allocatePages();
      look(5);
      const keptAgain = pagesAgain.filter((_, i) => i % 2 === 1);
      pagesAgain.length = 0;
      gc();
      await expect.poll(trimsAfterLook, { timeout: 5_000, interval: 20 }).toBeGreaterThan(afterBurst);
      expect(kept).toHaveLength(200);
      expect(keptAgain).toHaveLength(200);
    } finally {
      trimmer.stop();
      vi.useRealTimers();
    }
  });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function allocatePages(): Buffer[] {
  const pages: Buffer[] = [];
  for (let i = 0; i < 400; i += 1) pages.push(Buffer.allocUnsafeSlow(96 * 1024).fill(1));
  return pages;
}

/**
 * Allocates 400 page-sized buffers and keeps every other one: the dropped ones leave holes once collected.
 * A function of its own on purpose: written inline in the async test, the temporary array of all 400 stayed
 * reachable from the suspended test's frame across its awaits, nothing was freed, and no trim came.
 */
function fragment(): Buffer[] {
  return allocatePages().filter((_, i) => i % 2 === 1);
}

/**
 * Waits until three readings 50 ms apart give the same free bytes (within 1 MB): V8's background thread has
 * done freeing. Real time, on purpose: that thread keeps no clock a test could drive.
 */
async function freeBytesSettled(allocator: { freeBytes(): number }): Promise<void> {
  let last = allocator.freeBytes();
  let steady = 0;
  for (let look = 0; look < 100 && steady < 3; look += 1) {
    await sleep(50);
    const now = allocator.freeBytes();
    steady = Math.abs(now - last) < 1024 * 1024 ? steady + 1 : 0;
    last = now;
  }
  expect(steady).toBe(3);
}
