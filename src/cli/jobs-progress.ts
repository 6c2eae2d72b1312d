import type { Writable } from 'node:stream';
import type { JobCounts } from '../core/jobs/types.js';

/**
 * The progress line of a job on a terminal: done, failed, skipped of the total, the rate and the time left,
 * rewritten in place at most ten times a second. Off a terminal it writes nothing (scripts read the lines).
 */
export function createProgress(stream: Writable & { isTTY?: boolean }, counts: JobCounts, now: () => number = Date.now) {
  const started = now();
  let last = 0;
  const line = (): string => {
    const finished = counts.done + counts.failed + counts.skipped;
    const seconds = Math.max(0.001, (now() - started) / 1000);
    const rate = finished / seconds;
    const left = rate > 0 ? Math.ceil((counts.total - finished) / rate) : undefined;
    return `${finished}/${counts.total} · done ${counts.done} · failed ${counts.failed} · skipped ${counts.skipped} · ${rate.toFixed(1)}/s${left !== undefined ? ` · ${left} s left` : ''}`;
  };
  return {
    line,
    update(): void {
      if (!stream.isTTY) return;
      const at = now();
      if (at - last < 100) return;
      last = at;
      stream.write(`\r\x1b[2K${line()}`);
    },
    stop(): void {
      if (stream.isTTY) stream.write(`\r\x1b[2K${line()}\n`);
    },
  };
}
