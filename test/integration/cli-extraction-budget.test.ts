import { execa } from 'execa';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ApiConfigInput } from '../../src/core/config/schema.js';
import { writeSnapshot } from '../../src/core/health/snapshots.js';
import { CLI_BIN, ensureBuilt } from '../support/build-once.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { makeProject, type TempProject } from './daemon-support.js';

/**
 * Issue 40, item 3: every CLI path that extracts has the daemon's budget. `li:nth-last-of-type(3)` is an
 * allowed selector, quadratic in the number of siblings: on the fixture's 40,000-item list it runs for
 * seconds to tens of seconds (heal: over a minute). In-process, `pagejson test` on such a snapshot ran until
 * the CI job's limit and `pagejson mcp` neither answered nor stopped on SIGTERM.
 */
let site: FixtureSite;
let temp: TempProject | undefined;

beforeAll(async () => {
  await ensureBuilt();
  site = await startFixtureSite();
});
afterEach(async () => {
  await temp?.cleanup();
  temp = undefined;
});
afterAll(async () => {
  await site?.close();
});

const BUDGET_MS = 1_000;
const budgetError = (ms: number) => `extraction stopped: it ran past its budget of ${ms} ms (extraction.timeoutMs in pagejson.json)`;
const LIST = `<!doctype html><html><body><h1>Many items</h1><ul>${'<li>item</li>'.repeat(40_000)}</ul></body></html>`;

const costly = (): ApiConfigInput => ({
  apiId: 'costly',
  url: `${site.origin}/hostile/siblings?n=40000`,
  structure: [{ name: 'third', type: 'string', selector: 'li:nth-last-of-type(3)' }],
  generated: { at: '2026-11-01T00:00:00Z', model: 'heuristic', scraper: 1, sample: { third: 'item' } },
});

async function project(timeoutMs = BUDGET_MS): Promise<TempProject> {
  temp = await makeProject([costly()], { extraction: { timeoutMs } });
  return temp;
}

const cli = (...args: string[]) =>
  execa(process.execPath, [CLI_BIN, ...args], { cwd: temp!.root, reject: false, env: { NO_COLOR: '1' }, timeout: 60_000 });

describe('the extraction budget in the CLI', () => {
  it('pagejson test: a costly selector on a committed snapshot fails with the budget error', { timeout: 60_000 }, async () => {
    const { project: p } = await project();
    await writeSnapshot(
      p.configsDir,
      { apiId: 'costly', revision: 1, url: `${site.origin}/hostile/siblings?n=40000`, variables: {}, data: { third: 'item' } },
      LIST,
    );
    const result = await cli('test', '--format', 'json');
    expect(result.exitCode).toBe(1);
    const report = JSON.parse(result.stdout) as { ok: boolean; outcomes: Array<{ apiId: string; ok: boolean; error?: string }> };
    expect(report.outcomes).toEqual([{ apiId: 'costly', snapshot: 'default', ok: false, differences: [], error: budgetError(BUDGET_MS) }]);
  });

  it('run, snapshot and check end with the budget error', { timeout: 60_000 }, async () => {
    await project();
    const run = await cli('run', 'costly');
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(`error: ${budgetError(BUDGET_MS)}`);
    const snapshot = await cli('snapshot', 'costly');
    expect(snapshot.exitCode).toBe(1);
    expect(snapshot.stderr).toContain(`error: ${budgetError(BUDGET_MS)}`);
    const check = await cli('check', '--json');
    expect(check.exitCode).toBe(1);
    expect(JSON.parse(check.stdout).endpoints).toMatchObject([{ apiId: 'costly', state: 'unreachable', message: budgetError(BUDGET_MS) }]);
  });

  it('validate --live reports the budget as a problem of the config', { timeout: 60_000 }, async () => {
    await project();
    const result = await cli('validate', '--live', '--format', 'json');
    expect(result.exitCode).toBe(1);
    const problems = (JSON.parse(result.stdout) as { problems: Array<{ path: string; message: string; severity: string }> }).problems;
    expect(problems).toMatchObject([
      {
        path: '$.url',
        severity: 'error',
        message: `the live check of ${site.origin}/hostile/siblings?n=40000 failed: ${budgetError(BUDGET_MS)}`,
      },
    ]);
  });

  it('heal stops its repair at four budgets', { timeout: 60_000 }, async () => {
    await project();
    const result = await cli('heal', 'costly', '--json');
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(
      `error: repair stopped: it ran past its budget of ${4 * BUDGET_MS} ms (4 × extraction.timeoutMs in pagejson.json)`,
    );
  });
});

describe('pagejson generate', () => {
  it("parses the page within the project's document limits", { timeout: 60_000 }, async () => {
    temp = await makeProject([], { extraction: { maxElements: 1_000 } });
    const result = await cli('generate', `${site.origin}/hostile/siblings?n=40000`, '--id', 'many', '--yes');
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(
      'error: extraction stopped: the page has more than 1000 elements (extraction.maxElements in pagejson.json)',
    );
  });

  it('parses every page of its work within limits the project raised (issue 52 item 11)', { timeout: 60_000 }, async () => {
    // 700 levels: past the default maxDepth (512), within the project's 1,000; the model's parses and the
    // sample's once used the defaults, so the project's own setting was refused with a limit it does not have.
    temp = await makeProject([], { extraction: { maxDepth: 1_000 } });
    const deep = await cli('generate', `${site.origin}/hostile/nested?levels=700`, '--id', 'deep', '--yes', '--json');
    expect(deep.stderr).not.toContain('extraction stopped');
    expect(deep.exitCode).toBe(0);
    expect((JSON.parse(deep.stdout) as { apiId: string }).apiId).toBe('deep');
  });

  it("stops at its budget, as the dashboard's generation does, on a page that keeps the heuristic busy", { timeout: 60_000 }, async () => {
    // fetch.timeoutMs + 4 × extraction.timeoutMs = 5 s; the heuristic needs well over 10 s on these 5,000 tables.
    temp = await makeProject([], { fetch: { timeoutMs: 1_000 }, extraction: { timeoutMs: 1_000 } });
    const result = await cli('generate', `${site.origin}/hostile/many-tables`, '--id', 'many', '--yes');
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('error: generation stopped: it ran past its budget of 5000 ms');
  });
});

/** `pagejson mcp` in-process, spoken to line by line (newline-delimited JSON-RPC, as the MCP stdio transport). */
function mcp(cwd: string) {
  const child = execa(process.execPath, [CLI_BIN, 'mcp'], {
    cwd,
    reject: false,
    env: { NO_COLOR: '1', PATH: process.env.PATH ?? '' },
    stdin: 'pipe',
    timeout: 60_000,
  });
  const replies = new Map<number, { result?: { isError?: boolean; content?: Array<{ text: string }> } }>();
  let buffered = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += String(chunk);
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      const message = JSON.parse(buffered.slice(0, end)) as { id?: number };
      buffered = buffered.slice(end + 1);
      if (message.id !== undefined) replies.set(message.id, message as never);
    }
  });
  const send = (message: object) => child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
  send({
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
  });
  send({ method: 'notifications/initialized' });
  const call = (id: number, name: string) => send({ id, method: 'tools/call', params: { name, arguments: {} } });
  const reply = async (id: number) => {
    await vi.waitFor(() => expect(replies.has(id)).toBe(true), { timeout: 30_000, interval: 50 });
    return replies.get(id)!;
  };
  return { child, call, reply };
}

describe('pagejson mcp in-process', () => {
  it('answers a costly call with the budget error as a tool error', { timeout: 60_000 }, async () => {
    const { root } = await project();
    const server = mcp(root);
    await server.reply(1);
    server.call(2, 'costly');
    expect((await server.reply(2)).result).toEqual({ isError: true, content: [{ type: 'text', text: budgetError(BUDGET_MS) }] });
    server.child.stdin!.end();
    expect((await server.child).exitCode).toBe(0);
  });

  it('exits 0 on SIGTERM while a costly call is being extracted', { timeout: 60_000 }, async () => {
    // A budget far beyond the test: the call is still being extracted when the signal comes.
    const { root } = await project(600_000);
    const server = mcp(root);
    await server.reply(1);
    const fetched = site.hitCount('/hostile/siblings');
    server.call(2, 'costly');
    await vi.waitFor(() => expect(site.hitCount('/hostile/siblings')).toBe(fetched + 1), { timeout: 30_000, interval: 20 });
    server.child.kill('SIGTERM');
    const exited = await server.child;
    expect(exited.signal).toBeUndefined();
    expect(exited.exitCode).toBe(0);
  });
});
