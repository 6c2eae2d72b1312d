import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMemoryOriginGate } from '../../src/core/jobs/origin-gate.js';
import { createRobotsRules } from '../../src/core/jobs/robots.js';
import { runItems, RATE_LIMITED_TRIES } from '../../src/core/jobs/runner.js';
import { emptyCounts, type ItemAnswer, type JobItem, type ResultLine } from '../../src/core/jobs/types.js';
import { PagejsonError } from '../../src/core/shared/errors.js';

/**
 * Job traffic's politeness (issue 50, "polite by default"), on fake timers: an origin's turns (at most N at
 * once, starts at least the minimum delay apart, in the order asked), a 429's pause that every job waits out,
 * robots.txt read as RFC 9309 says, and the runner that ends a 429 in data (the item runs again after the
 * pause) and a robots refusal in a ROBOTS_DISALLOWED line without asking the page.
 */
afterEach(() => {
  vi.useRealTimers();
});

/** When each acquire resolved, in fake ms since the start. */
function starts(gate: ReturnType<typeof createMemoryOriginGate>, origin: string, count: number, holdMs: number) {
  const at: number[] = [];
  const t0 = Date.now();
  const all = Array.from({ length: count }, async () => {
    const release = await gate.acquire(origin);
    at.push(Date.now() - t0);
    setTimeout(release, holdMs);
  });
  return { at, all: Promise.all(all) };
}

describe('the memory origin gate', () => {
  it('lets at most `concurrency` in at once, each start at least minDelayMs after the one before', async () => {
    vi.useFakeTimers();
    const gate = createMemoryOriginGate({ concurrency: 2, minDelayMs: 250 });
    const run = starts(gate, 'http://a.test', 4, 1_000);
    const other = starts(gate, 'http://b.test', 1, 10);
    await vi.advanceTimersByTimeAsync(0);
    // Another origin does not wait on this one.
    expect(other.at).toEqual([0]);
    await vi.advanceTimersByTimeAsync(5_000);
    await run.all;
    // 0 and 250 fill the two slots; the third waits for the first release (1000), the fourth for the second (1250).
    expect(run.at).toEqual([0, 250, 1_000, 1_250]);
    await gate.close();
  });

  it('holds every waiter of a paused origin until the pause is over, then goes on at the delay', async () => {
    vi.useFakeTimers();
    const gate = createMemoryOriginGate({ concurrency: 4, minDelayMs: 100 });
    (await gate.acquire('http://a.test'))();
    await gate.pause('http://a.test', 5_000);
    const run = starts(gate, 'http://a.test', 2, 10);
    await vi.advanceTimersByTimeAsync(4_999);
    expect(run.at).toEqual([]);
    await vi.advanceTimersByTimeAsync(200);
    await run.all;
    expect(run.at).toEqual([5_000, 5_100]);
    await gate.close();
  });

  it('lets a waiter leave when its signal aborts, and the next one takes the slot', async () => {
    vi.useFakeTimers();
    const gate = createMemoryOriginGate({ concurrency: 1, minDelayMs: 0 });
    const first = await gate.acquire('http://a.test');
    const controller = new AbortController();
    const leaving = gate.acquire('http://a.test', controller.signal);
    const staying = gate.acquire('http://a.test');
    controller.abort(new Error('cancelled'));
    await expect(leaving).rejects.toThrow('cancelled');
    first();
    await vi.advanceTimersByTimeAsync(0);
    await expect(staying).resolves.toBeTypeOf('function');
    await gate.close();
  });
});

describe('robots.txt rules', () => {
  it("follows the pagejson group, else *, reads each origin's file once within its life, and reads 4xx as allow, 5xx as disallow", async () => {
    let clock = 0;
    const fetched: string[] = [];
    const files: Record<string, { status: number; text: string }> = {
      'http://a.test/robots.txt': {
        status: 200,
        text: 'User-agent: *\nDisallow: /\n\nUser-agent: pagejson\nDisallow: /private\nAllow: /private/open\n',
      },
      'http://b.test/robots.txt': { status: 404, text: '' },
      'http://c.test/robots.txt': { status: 503, text: '' },
    };
    const rules = createRobotsRules({
      now: () => clock,
      ttlMs: 60_000,
      fetchRobots: async (url) => {
        fetched.push(url);
        return files[url]!;
      },
    });
    expect(await rules.refusal('http://a.test/items/1')).toBeUndefined();
    expect(await rules.refusal('http://a.test/private/2')).toBe('http://a.test/robots.txt disallows http://a.test/private/2 for pagejson');
    expect(await rules.refusal('http://a.test/private/open/3')).toBeUndefined();
    expect(await rules.refusal('http://b.test/anything')).toBeUndefined();
    expect(await rules.refusal('http://c.test/x')).toMatch(/answered 503, so it is read as disallowing everything/);
    expect(fetched).toEqual(['http://a.test/robots.txt', 'http://b.test/robots.txt', 'http://c.test/robots.txt']);
    // A failure is kept a minute, a file its whole life.
    files['http://c.test/robots.txt'] = { status: 200, text: '' };
    clock = 61_000;
    expect(await rules.refusal('http://c.test/x')).toBeUndefined();
    expect(await rules.refusal('http://a.test/private/2')).toBeDefined();
    expect(fetched.filter((url) => url.startsWith('http://a.test'))).toHaveLength(2);
  });
});

const items = (count: number): JobItem[] =>
  Array.from({ length: count }, (_, index) => ({ index, input: { id: String(index) }, values: { id: String(index) } }));
const answer = (id: string): ItemAnswer => ({ data: { id }, health: 'healthy', fetchedAt: '2026-01-01T00:00:00.000Z', milliCredits: 400 });
const limited = (seconds: number) =>
  new PagejsonError('SOURCE_RATE_LIMITED', `the source asked to be left alone (HTTP 429); try again in ${seconds} s`, {
    context: { retryAfterSeconds: seconds },
  });

describe('runItems with politeness', () => {
  it('pauses the origin for every item on a 429 and runs the item again after it: data, not an empty record', async () => {
    vi.useFakeTimers();
    const gate = createMemoryOriginGate({ concurrency: 2, minDelayMs: 0 });
    const asked: Array<{ id: string; at: number }> = [];
    let first429 = true;
    const lines: ResultLine[] = [];
    const t0 = Date.now();
    const run = runItems(items(4), {
      retrieveItem: async (values) => {
        asked.push({ id: values.id!, at: Date.now() - t0 });
        if (values.id === '0' && first429) {
          first429 = false;
          throw limited(30);
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
        return answer(values.id!);
      },
      append: (line) => lines.push(line),
      finished: new Set(),
      counts: emptyCounts(4),
      concurrency: 4,
      itemTimeoutMs: 60_000,
      politeness: { urlOf: (values) => `http://a.test/item/${values.id}`, gate },
    });
    await vi.advanceTimersByTimeAsync(29_000);
    // Item 1 was in flight; items 2 and 3 and the retry of 0 wait out the 30 s pause.
    expect(asked).toEqual([
      { id: '0', at: 0 },
      { id: '1', at: 0 },
    ]);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(await run).toEqual({ state: 'done' });
    expect(asked.slice(2).every((call) => call.at >= 30_000)).toBe(true);
    expect(lines.map((line) => line.outcome)).toEqual(['data', 'data', 'data', 'data']);
    await gate.close();
  });

  it('ends an item as SOURCE_RATE_LIMITED after its 429s, and a robots refusal as ROBOTS_DISALLOWED without a fetch', async () => {
    vi.useFakeTimers();
    const gate = createMemoryOriginGate({ concurrency: 1, minDelayMs: 0 });
    const asked: string[] = [];
    const lines: ResultLine[] = [];
    const counts = emptyCounts(2);
    const run = runItems(items(2), {
      retrieveItem: async (values) => {
        asked.push(values.id!);
        throw limited(1);
      },
      append: (line) => lines.push(line),
      finished: new Set(),
      counts,
      concurrency: 2,
      itemTimeoutMs: 60_000,
      politeness: {
        urlOf: (values) => `http://a.test/item/${values.id}`,
        gate,
        robots: { refusal: async (url) => (url.endsWith('/1') ? 'http://a.test/robots.txt disallows it' : undefined) },
      },
    });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(await run).toEqual({ state: 'done' });
    expect(asked).toEqual(Array.from({ length: RATE_LIMITED_TRIES + 1 }, () => '0'));
    const byIndex = new Map(lines.map((line) => [line.index, line]));
    expect(byIndex.get(0)).toMatchObject({ outcome: 'error', errors: [{ code: 'SOURCE_RATE_LIMITED' }] });
    expect(byIndex.get(1)).toMatchObject({
      outcome: 'error',
      errors: [{ code: 'ROBOTS_DISALLOWED', message: 'http://a.test/robots.txt disallows it' }],
    });
    expect(counts).toMatchObject({ total: 2, failed: 2 });
    await gate.close();
  });

  it('ends an item that waited for its origin when the job is cancelled as a cancelled line, and one line each', async () => {
    vi.useFakeTimers();
    const gate = createMemoryOriginGate({ concurrency: 1, minDelayMs: 1_000 });
    const controller = new AbortController();
    const lines: ResultLine[] = [];
    const counts = emptyCounts(3);
    const run = runItems(items(3), {
      retrieveItem: async (values) => answer(values.id!),
      append: (line) => lines.push(line),
      finished: new Set(),
      counts,
      concurrency: 3,
      signal: controller.signal,
      itemTimeoutMs: 60_000,
      politeness: { urlOf: (values) => `http://a.test/item/${values.id}`, gate },
    });
    await vi.advanceTimersByTimeAsync(10);
    controller.abort('cancel');
    expect(await run).toMatchObject({ state: 'cancelled' });
    expect(lines.map((line) => [line.index, line.outcome]).sort()).toEqual([
      [0, 'data'],
      [1, 'skipped'],
      [2, 'skipped'],
    ]);
    expect(counts.done + counts.failed + counts.skipped).toBe(3);
    await gate.close();
  });
});
