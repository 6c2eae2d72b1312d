import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { hasWireRow, JOB_LINE_TABLE } from '../../src/core/shared/error-table.js';

/**
 * The codes of a job's results lines that are not HTTP answers (src/core/shared/error-table.ts, issue 50): they
 * have no row of the wire table (so no status), and docs/wire.md lists them as the table says.
 */
function jobLineMarkdown(): string {
  const lines = ['| code | outcome | when |', '|---|---|---|'];
  for (const row of JOB_LINE_TABLE) lines.push(`| \`${row.code}\` | ${row.outcome} | ${row.when} |`);
  return lines.join('\n');
}

describe("a job's own line codes", () => {
  it('are no HTTP answer, and docs/wire.md shows them as the table says', () => {
    expect(JOB_LINE_TABLE.map((row) => row.code)).toEqual(['ROBOTS_DISALLOWED', 'URL_NOT_MATCHED', 'CANCELLED']);
    for (const row of JOB_LINE_TABLE) expect(hasWireRow(row.code), row.code).toBe(false);
    const doc = readFileSync(new URL('../../docs/wire.md', import.meta.url), 'utf8');
    expect(doc).toContain(jobLineMarkdown());
  });
});
