import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KEPT_ENTRIES, readHistory, recordRun, type RunRecord } from '../../bench/history.js';

const UNCACHED = 'uncached GET req/s, scraper 1, 100 KB page, 50 items × 5 fields';
const RSS = 'daemon RSS, 1,000 configs + 10,000 cache entries, after load';

const run = (revision: string, at: string, figures: RunRecord['figures'], quick = false): RunRecord => ({
  revision,
  at,
  node: 'v20.0.0',
  quick,
  seconds: { load: 100 },
  figures,
});
const figure = (name: string, value: number, ratio: number | null, pass = true) => ({ figure: name, value, unit: 'x', ratio, pass });

describe('the bench record of figures per revision (bench/history.json)', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'bench-history-'));
    file = join(dir, 'history.json');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('records a first run and says there is nothing to compare with', () => {
    const lines = recordRun(file, run('aaa1111', '2026-11-25T10:00:00Z', [figure(UNCACHED, 567, 0.81)]));
    expect(lines[0]).toMatch(/no earlier run recorded/);
    expect(lines[1]).toContain(`new  ${UNCACHED}: 567`);
    expect(readHistory(file).entries).toMatchObject([{ revision: 'aaa1111', figures: { [UNCACHED]: { value: 567, ratio: 0.81 } } }]);
  });

  it('prints each figure against the last recorded run, and a figure that fell off its target', () => {
    recordRun(file, run('aaa1111', '2026-11-25T10:00:00Z', [figure(UNCACHED, 567, 0.81), figure(RSS, 176, null)]));
    const lines = recordRun(
      file,
      run('bbb2222', '2026-11-28T10:00:00Z', [figure(UNCACHED, 390, 0.55, false), figure(RSS, 211, null, false)]),
    );
    expect(lines[0]).toBe('change against the last recorded run (aaa1111, 2026-11-25T10:00:00Z):');
    expect(lines[1]).toBe(`  −31.2%  ${UNCACHED}: 390 x (was 567); ratio 0.55 (was 0.81); NOW OFF TARGET`);
    expect(lines[2]).toBe(`  +19.9%  ${RSS}: 211 x (was 176); NOW OFF TARGET`);
    expect(readHistory(file).entries.map((entry) => entry.revision)).toEqual(['aaa1111', 'bbb2222']);
  });

  it('merges BENCH_ONLY groups of one revision into its entry, a figure measured again replacing the one before', () => {
    recordRun(file, run('ccc3333', '2026-11-28T10:00:00Z', [figure(UNCACHED, 500, 0.7)]));
    recordRun(file, { ...run('ccc3333', '2026-11-28T10:05:00Z', [figure(RSS, 190, null)]), seconds: { memory: 45 } });
    const lines = recordRun(file, run('ccc3333', '2026-11-28T10:10:00Z', [figure(UNCACHED, 520, 0.82)]));
    expect(lines[1]).toContain('+4.0%');
    const { entries } = readHistory(file);
    expect(entries).toHaveLength(1);
    expect(entries[0]!.figures).toEqual({
      [UNCACHED]: { value: 520, unit: 'x', ratio: 0.82, pass: true },
      [RSS]: { value: 190, unit: 'x', ratio: null, pass: true },
    });
    expect(entries[0]!.seconds).toEqual({ load: 100, memory: 45 });
  });

  it('compares a quick run only with quick runs, and a group with the last run that measured its figures', () => {
    recordRun(file, run('ddd4444', '2026-11-28T09:00:00Z', [figure(UNCACHED, 560, 0.9)]));
    recordRun(file, run('ddd4444', '2026-11-28T09:30:00Z', [figure(UNCACHED, 100, 0.5)], true));
    recordRun(file, run('eee5555', '2026-11-28T10:00:00Z', [figure(RSS, 195, null)]));
    const lines = recordRun(file, run('fff6666', '2026-11-28T11:00:00Z', [figure(UNCACHED, 588, 0.95)]));
    expect(lines[0]).toContain('(ddd4444, 2026-11-28T09:00:00Z)');
    expect(lines[1]).toContain('+5.0%');
  });

  it(`keeps the last ${KEPT_ENTRIES} revisions`, () => {
    for (let index = 0; index < KEPT_ENTRIES + 5; index += 1)
      recordRun(file, run(`r${index}`, new Date(Date.UTC(2026, 0, 1, 0, index)).toISOString(), [figure(UNCACHED, index, null)]));
    const { entries } = readHistory(file);
    expect(entries).toHaveLength(KEPT_ENTRIES);
    expect(entries[0]!.revision).toBe('r5');
    expect(entries.at(-1)!.revision).toBe(`r${KEPT_ENTRIES + 4}`);
  });

  it('starts over from a file that is not a history, and keeps a figure named like a prototype member a plain entry', () => {
    writeFileSync(file, '{"entries": [{"revision": 1}, "x", null]');
    expect(readHistory(file).entries).toEqual([]);
    writeFileSync(file, JSON.stringify({ version: 1, entries: [{ revision: 'x', quick: false, figures: null }] }));
    expect(readHistory(file).entries).toEqual([]);
    recordRun(file, run('ggg7777', '2026-11-28T10:00:00Z', [figure('__proto__', 1, null)]));
    const lines = recordRun(file, run('hhh8888', '2026-11-28T11:00:00Z', [figure('__proto__', 2, null)]));
    expect(lines[1]).toContain('+100.0%  __proto__: 2.00 x (was 1.00)');
    expect(Object.keys(JSON.parse(readFileSync(file, 'utf8')).entries[1].figures)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).value).toBeUndefined();
  });
});
