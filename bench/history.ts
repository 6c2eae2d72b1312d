import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

/**
 * The bench's record of its figures per revision (bench/history.json, checked in): every run merges its
 * figures into the entry of the revision it measured and prints each figure's change against the run recorded
 * last, so a slow creep shows in the run that causes it rather than after 271 commits. A `BENCH_ONLY` group
 * adds its figures to the same revision's entry: the groups compose one record as they compose the full run.
 */
export interface RecordedFigure {
  value: number;
  unit: string;
  ratio: number | null;
  pass: boolean;
}

export interface HistoryEntry {
  /** `git rev-parse --short HEAD`, with `+dirty` when the work tree had changes. */
  revision: string;
  /** When a figure of this entry was last measured. */
  at: string;
  node: string;
  /** `--quick` runs are smoke runs: recorded apart from full runs, never compared with them. */
  quick: boolean;
  /** Seconds each group of the run took (load, scraper2, scaling, …), the latest run's. */
  seconds: Record<string, number>;
  figures: Record<string, RecordedFigure>;
  /** Where figures the bench did not write came from (the first entry: docs/performance.md's 2026-11-25 run). */
  source?: string;
}

export interface History {
  version: 1;
  entries: HistoryEntry[];
}

/** Entries kept: a year of daily runs is far more than the file needs to show a creep. */
export const KEPT_ENTRIES = 200;

export interface RunRecord {
  revision: string;
  at: string;
  node: string;
  quick: boolean;
  seconds: Record<string, number>;
  figures: ReadonlyArray<{ figure: string } & RecordedFigure>;
}

/** The history in the file, or an empty one when there is none yet (or it is not one this bench wrote). */
export function readHistory(file: string): History {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return { version: 1, entries: [] };
  }
  const entries = (parsed as Partial<History> | null)?.entries;
  return Array.isArray(entries) ? { version: 1, entries: entries.filter(isEntry) } : { version: 1, entries: [] };
}

function isEntry(value: unknown): value is HistoryEntry {
  const entry = value as Partial<HistoryEntry> | null;
  return (
    typeof entry?.revision === 'string' &&
    typeof entry.quick === 'boolean' &&
    entry.figures !== null &&
    typeof entry.figures === 'object' &&
    !Array.isArray(entry.figures)
  );
}

/** The entry the run is compared with: the latest of the same kind (full or quick) holding any of its figures. */
export function previousEntry(history: History, run: RunRecord): HistoryEntry | undefined {
  const names = run.figures.map((figure) => figure.figure);
  return history.entries
    .filter((entry) => entry.quick === run.quick && names.some((name) => Object.hasOwn(entry.figures, name)))
    .reduce<HistoryEntry | undefined>((latest, entry) => (latest === undefined || entry.at >= latest.at ? entry : latest), undefined);
}

/**
 * The history with the run recorded: its figures merged into its revision's entry (a figure measured again
 * replaces the one before), the entry moved to the end, the oldest entries dropped past KEPT_ENTRIES.
 */
export function withRun(history: History, run: RunRecord): History {
  const index = history.entries.findIndex((entry) => entry.revision === run.revision && entry.quick === run.quick);
  const before = index >= 0 ? history.entries[index]! : undefined;
  const figures: Record<string, RecordedFigure> = { ...before?.figures };
  for (const { figure, value, unit, ratio, pass } of run.figures) {
    // defineProperty: a figure named like an Object.prototype member stays a plain entry.
    Object.defineProperty(figures, figure, { value: { value, unit, ratio, pass }, enumerable: true, writable: true, configurable: true });
  }
  const entry: HistoryEntry = {
    revision: run.revision,
    at: run.at,
    node: run.node,
    quick: run.quick,
    seconds: { ...before?.seconds, ...run.seconds },
    figures,
  };
  const others = history.entries.filter((_, at) => at !== index);
  return { version: 1, entries: [...others, entry].slice(-KEPT_ENTRIES) };
}

/** "+12.5%" (no sign for nothing), or "new" when the figure was not recorded before. */
function change(now: number, before: number | null | undefined): string {
  if (before === null || before === undefined || !Number.isFinite(before)) return 'new';
  if (before === 0) return now === 0 ? '±0%' : 'from 0';
  const percent = ((now - before) / Math.abs(before)) * 100;
  return `${percent > 0 ? '+' : percent < 0 ? '−' : '±'}${Math.abs(percent).toFixed(1)}%`;
}

const shown = (n: number) => (Math.abs(n) >= 100 ? n.toFixed(0) : n.toFixed(2));

/** One line per figure of the run: its value and ratio now, then, and the change. */
export function changeLines(run: RunRecord, previous: HistoryEntry | undefined): string[] {
  const header = previous
    ? `change against the last recorded run (${previous.revision}, ${previous.at}):`
    : 'no earlier run recorded: these figures are the first of bench/history.json';
  const lines = [header];
  for (const figure of run.figures) {
    const before = previous && Object.hasOwn(previous.figures, figure.figure) ? previous.figures[figure.figure] : undefined;
    const ratio =
      figure.ratio === null ? '' : `; ratio ${figure.ratio.toFixed(2)}${before?.ratio != null ? ` (was ${before.ratio.toFixed(2)})` : ''}`;
    const was = before ? ` (was ${shown(before.value)})` : '';
    const flip = before && before.pass !== figure.pass ? (figure.pass ? '; now on target' : '; NOW OFF TARGET') : '';
    lines.push(`  ${change(figure.value, before?.value)}  ${figure.figure}: ${shown(figure.value)} ${figure.unit}${was}${ratio}${flip}`);
  }
  return lines;
}

/**
 * The revision the bench measured: the checkout's HEAD, marked when the work tree had changes other than what
 * the bench writes itself (this record and the charts).
 */
export function currentRevision(cwd: string): string {
  const head = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd, encoding: 'utf8' });
  if (head.status !== 0) return 'unknown';
  const status = spawnSync('git', ['status', '--porcelain', '--untracked-files=no', '--', '.', ':!bench/history.json', ':!docs/bench'], {
    cwd,
    encoding: 'utf8',
  });
  return `${head.stdout.trim()}${status.stdout.trim() ? '+dirty' : ''}`;
}

/** Records the run in the file and returns the lines that say what changed since the last recorded run. */
export function recordRun(file: string, run: RunRecord): string[] {
  const history = readHistory(file);
  const lines = changeLines(run, previousEntry(history, run));
  writeFileSync(file, `${JSON.stringify(withRun(history, run), null, 2)}\n`);
  return lines;
}
