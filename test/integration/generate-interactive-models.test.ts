import { screen } from '@inquirer/testing/vitest';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
// The CLI is imported after @inquirer/testing/vitest, which replaces the prompts with its screen.
import type { CliContext } from '../../src/cli/context.js';
import { main } from '../../src/cli/main.js';
import { replyField, startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';

/**
 * `pagejson generate` on a terminal with an OpenAI-compatible model, cancelled at the review: nothing is
 * written or charged, and the tokens the model spent are in the endpoint's usage (docs/models.md, "Tokens").
 */
let site: FixtureSite;
let llm: FakeLlm;
const dirs: string[] = [];

beforeAll(async () => {
  site = await startFixtureSite();
  llm = await startFakeLlm([], { usage: 'counted' });
});
afterAll(async () => {
  await llm.close();
  await site.close();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

function terminalContext(dir: string): CliContext & { output: () => string } {
  let text = '';
  const sink = () =>
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        text += chunk.toString();
        done();
      },
    });
  return { cwd: dir, env: { NO_COLOR: '1' }, stdout: sink(), stderr: sink(), interactive: true, exitCode: 0, output: () => text };
}

describe('pagejson generate on a terminal with a model', () => {
  it('records the tokens of a generation cancelled at the review, and charges nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pagejson-generate-tty-models-'));
    dirs.push(dir);
    const project = {
      fetch: { allowPrivateNetworks: true, timeoutMs: 5_000 },
      models: { local: { baseURL: llm.baseURL, model: 'm', maxRetries: 0 } },
    };
    await writeFile(join(dir, 'pagejson.json'), JSON.stringify(project));
    llm.script([
      {
        json: {
          structure: [replyField('countries', 'array', '#countries tbody tr', { fields: [replyField('country', 'string', 'td a')] })],
        },
      },
    ]);
    const ctx = terminalContext(dir);
    const args = [
      'generate',
      `${site.origin}/table.html`,
      '--id',
      'countries',
      '--scraper',
      '1',
      '--model',
      'local',
      '--selector',
      'body',
      '--rule',
      '',
    ];
    const run = main(['node', 'pagejson', ...args], ctx);

    await vi.waitFor(() => expect(screen.getScreen()).toContain('Use session'), { timeout: 20_000, interval: 20 });
    screen.keypress('enter');
    await vi.waitFor(() => expect(screen.getScreen()).toContain('Save this structure as countries?'), { timeout: 20_000, interval: 20 });
    expect(ctx.output()).toContain('India');
    screen.keypress('down');
    screen.keypress('down');
    screen.keypress('down');
    screen.keypress('enter'); // Cancel

    expect(await run).toBe(130);
    expect(ctx.output()).toContain('cancelled: nothing was written or charged');
    expect(existsSync(join(dir, 'configs/countries.json'))).toBe(false);
    const spent = { ...llm.reported };
    expect(spent.promptTokens).toBeGreaterThan(0);

    const usage = terminalContext(dir);
    expect(await main(['node', 'pagejson', 'usage', '--api', 'countries', '--json'], usage)).toBe(0);
    expect(JSON.parse(usage.output())).toMatchObject([{ apiId: 'countries', keyId: null, milliCredits: 0, ...spent }]);
    const credits = terminalContext(dir);
    await main(['node', 'pagejson', 'credits', '--json'], credits);
    expect((JSON.parse(credits.output()) as { balance: number }).balance).toBe(100);
  });
});
