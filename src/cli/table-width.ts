import type { Writable } from 'node:stream';

/**
 * How wide the tables of human output may be (output.ts): the terminal's columns (COLUMNS where the output is
 * not a terminal but says its width), or no bound for a pipe that says nothing; `--wide` lifts the bound. Set by
 * the CLI's main before each command (kept apart from output.ts so that start-up loads no table package).
 */
let tableWidth: number | undefined;

export function setTableWidth(width: number | undefined): void {
  tableWidth = width !== undefined && Number.isFinite(width) && width >= 20 ? Math.floor(width) : undefined;
}

export function currentTableWidth(): number | undefined {
  return tableWidth;
}

/** The width of `stream` for tables: its columns on a terminal, else COLUMNS, else none. */
export function outputWidth(
  stream: Writable & { isTTY?: boolean; columns?: number },
  env: Record<string, string | undefined>,
): number | undefined {
  if (stream.isTTY && stream.columns) return stream.columns;
  const columns = Number(env.COLUMNS);
  return env.COLUMNS && Number.isInteger(columns) ? columns : undefined;
}
