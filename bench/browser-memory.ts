import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { runInNewContext } from 'node:vm';
import v8 from 'node:v8';

/**
 * What a browser holds, read from outside it (Linux: `ps` and /proc): the proportional set size (PSS) of a
 * Chromium's processes, so that pages or contexts left open in the browser show up even when pagejson's own
 * RSS stays flat. PSS rather than RSS: Chromium's processes share most of their pages, and RSS would count
 * them once per process.
 */
interface ProcessRow {
  pid: number;
  ppid: number;
  comm: string;
}

async function processTable(): Promise<ProcessRow[]> {
  const output = await new Promise<string>((resolve, reject) =>
    execFile('ps', ['-eo', 'pid=,ppid=,comm='], { maxBuffer: 16 * 1024 * 1024 }, (error, stdout) =>
      error ? reject(error) : resolve(stdout),
    ),
  );
  return output
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .map(([pid, ppid, ...comm]) => ({ pid: Number(pid), ppid: Number(ppid), comm: comm.join(' ') }));
}

function subtree(rows: ProcessRow[], root: number): Set<number> {
  const found = new Set<number>([root]);
  // Parents are listed before children only by accident; iterate until the set stops growing.
  for (let grew = true; grew;) {
    grew = false;
    for (const row of rows) {
      if (!found.has(row.pid) && found.has(row.ppid)) {
        found.add(row.pid);
        grew = true;
      }
    }
  }
  return found;
}

async function pssKb(pid: number): Promise<number> {
  try {
    const rollup = await readFile(`/proc/${pid}/smaps_rollup`, 'utf8');
    return Number(/^Pss:\s+(\d+) kB/m.exec(rollup)?.[1] ?? 0);
  } catch {
    // The process ended between ps and the read (a renderer of a closed page): it holds nothing now.
    return 0;
  }
}

/**
 * PSS in MB and the number of the Chromium processes under `root` (the bench's own process for a launch
 * here, a Playwright server's browser for the remote side), leaving out those under `except`.
 */
export async function chromiumMemory(root: number, except?: number): Promise<{ mb: number; processes: number }> {
  const rows = await processTable();
  const excluded = except === undefined ? new Set<number>() : subtree(rows, except);
  const chromium = rows.filter((row) => row.pid !== process.pid && /chrom/i.test(row.comm) && !excluded.has(row.pid));
  const under = subtree(rows, root);
  const mine = chromium.filter((row) => under.has(row.pid));
  const kb = (await Promise.all(mine.map((row) => pssKb(row.pid)))).reduce((sum, value) => sum + value, 0);
  return { mb: kb / 1024, processes: mine.length };
}

/** Full garbage collections (the bench runs without --expose-gc), so that RSS compares settled heaps. */
export function collectGarbage(): void {
  v8.setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  for (let round = 0; round < 3; round += 1) gc();
}
