import { Chalk } from 'chalk';
import Table from 'cli-table3';
import type { Writable } from 'node:stream';

/** Colours only on a terminal and never with NO_COLOR (https://no-color.org). */
export function colors(stream: Writable & { isTTY?: boolean }, env: Record<string, string | undefined>): InstanceType<typeof Chalk> {
  const enabled = Boolean(stream.isTTY) && !('NO_COLOR' in env) && env.TERM !== 'dumb';
  return new Chalk({ level: enabled ? 1 : 0 });
}

/** A plain table for human output; scripts use --json instead. */
export function renderTable(head: string[], rows: Array<Array<string | number | null | undefined>>): string {
  const table = new Table({ head, style: { head: [], border: [] } });
  for (const row of rows) table.push(row.map((cell) => (cell === null || cell === undefined ? '-' : String(cell))));
  return table.toString();
}
