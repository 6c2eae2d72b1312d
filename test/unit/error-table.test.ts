import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PagejsonError, type ErrorCode } from '../../src/core/shared/errors.js';
import { INTERNAL_ROW, WIRE_TABLE, wireRow, type WireRow } from '../../src/core/shared/error-table.js';
import { errorReply } from '../../src/daemon/errors.js';

/**
 * The one error table (src/core/shared/error-table.ts): what the daemon answers is what the table says, and
 * docs/wire.md shows the table as it is.
 */
function messageCell(row: WireRow): string {
  const { kind, text } = row.message;
  if (kind === 'per-problem') return text;
  if (kind === 'prefixed') return `\`${text}<reason>\``;
  return `\`${text}\``;
}

/** The table as docs/wire.md shows it. */
export function wireTableMarkdown(): string {
  const lines = ['| codes | when | status | message | credits | counts against the key |', '|---|---|---|---|---|---|'];
  for (const row of WIRE_TABLE) {
    const codes = row.codes.map((code) => `\`${code}\``).join(', ');
    lines.push(
      `| ${codes} | ${row.when} | ${row.status} | ${messageCell(row)} | ${row.refunded ? 'refunded' : '—'} | ${row.countsAsFailure ? 'yes' : 'no'} |`,
    );
  }
  return lines.join('\n');
}

describe('the error table', () => {
  it('gives every code one row, and answers every PagejsonError code with its row (others with INTERNAL)', () => {
    const codes = WIRE_TABLE.flatMap((row) => row.codes);
    expect(new Set(codes).size).toBe(codes.length);
    for (const row of WIRE_TABLE) {
      for (const code of row.codes) {
        if (
          ['TIMEOUT', 'ROUTE_NOT_FOUND', 'BAD_REQUEST', 'BAD_URL', 'HEADERS_TOO_LARGE', 'MISDIRECTED_REQUEST', 'NOT_READY'].includes(code)
        )
          continue;
        const reply = errorReply(new PagejsonError(code as ErrorCode, 'the reason'));
        expect(reply.status, code).toBe(row.status);
        const expected =
          row.message.kind === 'fixed'
            ? row.message.text
            : row.message.kind === 'prefixed'
              ? `${row.message.text}the reason`
              : 'the reason';
        expect(reply.errors[0]!.message, code).toBe(expected);
      }
    }
    expect(wireRow('INTERNAL')).toBe(INTERNAL_ROW);
    expect(errorReply(new PagejsonError('INTERNAL', '/secret/path')).errors).toEqual([
      { message: 'something went wrong', code: 'INTERNAL' },
    ]);
    // A model's failure is told in fixed words: the server's own (an address, part of a key) stay in the log.
    expect(errorReply(new PagejsonError('MODEL_FAILED', 'model m could not be reached: HTTP 401 key sk-…abcd')).errors).toEqual([
      { message: 'the model could not fill the fields: it did not answer in time, or not with usable data', code: 'MODEL_FAILED' },
    ]);
  });

  it('refunds exactly the failures of the service, and counts them and the 400s against the key', () => {
    for (const row of WIRE_TABLE) {
      if (row.refunded) expect(row.status, row.codes[0]).toBeGreaterThanOrEqual(500);
      if (row.countsAsFailure) expect(row.refunded || row.status === 400, row.codes[0]).toBe(true);
    }
    expect(wireRow('VARIABLE_PATTERN').countsAsFailure).toBe(true);
    expect(wireRow('BODY_INVALID_JSON').countsAsFailure).toBe(true);
    expect(wireRow('RATE_LIMITED').countsAsFailure).toBe(false);
    expect(wireRow('NO_CREDITS').refunded).toBe(false);
  });

  it('is what docs/wire.md shows', () => {
    const doc = readFileSync(new URL('../../docs/wire.md', import.meta.url), 'utf8');
    expect(doc).toContain(wireTableMarkdown());
  });
});
