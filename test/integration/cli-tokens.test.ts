import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, ensureBuilt } from '../support/build-once.js';
import { startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { makeProject, type TempProject } from './daemon-support.js';

/**
 * Issue 52, item 4: the model's tokens spent by CLI `run` and `check` reach `usage` (docs/models.md says they
 * count), at no cost; a model that answered and then failed has spent its tokens all the same.
 */
let site: FixtureSite;
let llm: FakeLlm;
let babbler: FakeLlm;
let temp: TempProject;

const structure = [
  { name: 'title', type: 'string' as const, selector: 'h1' },
  { name: 'summary', type: 'string' as const, description: 'one sentence about the product' },
];

beforeAll(async () => {
  await ensureBuilt();
  site = await startFixtureSite();
  llm = await startFakeLlm();
  babbler = await startFakeLlm(() => 'The summary of this product is that it is a fine lamp.', { usage: 'counted' });
  temp = await makeProject(
    [
      { apiId: 'lamp', url: `${site.origin}/product.html`, model: 'local', structure },
      { apiId: 'babble', url: `${site.origin}/product.html`, model: 'babbler', structure },
    ],
    {
      models: {
        local: { baseURL: llm.baseURL, model: 'fake-model' },
        babbler: { baseURL: babbler.baseURL, model: 'prose', maxRetries: 0 },
      },
      extraction: { timeoutMs: 60_000 },
      fetch: { timeoutMs: 60_000 },
    },
  );
}, 400_000);

afterAll(async () => {
  await llm?.close();
  await babbler?.close();
  await site?.close();
  await temp?.cleanup();
});

const cli = (...args: string[]) => execa(process.execPath, [CLI_BIN, ...args], { cwd: temp.root, reject: false, env: { NO_COLOR: '1' } });
type Row = { apiId: string; keyId: string | null; promptTokens: number; completionTokens: number; milliCredits: number };
const usageOf = async (apiId: string): Promise<Row[]> => JSON.parse((await cli('usage', '--api', apiId, '--json')).stdout) as Row[];

describe('model tokens of CLI commands in usage', () => {
  it('run and check record the tokens of their fills in the endpoint’s usage, keyless and free', async () => {
    llm.script([
      { json: { summary: 'A lamp.' }, usage: { prompt_tokens: 321, completion_tokens: 45 } },
      { json: { summary: 'A lamp again.' }, usage: { prompt_tokens: 100, completion_tokens: 5 } },
    ]);
    const ran = await cli('run', 'lamp');
    expect(ran.exitCode, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout)).toMatchObject({ summary: 'A lamp.' });
    expect(await usageOf('lamp')).toMatchObject([{ apiId: 'lamp', keyId: null, promptTokens: 321, completionTokens: 45, milliCredits: 0 }]);
    const checked = await cli('check', 'lamp', '--json');
    expect(checked.exitCode, checked.stdout + checked.stderr).toBe(0);
    expect(await usageOf('lamp')).toMatchObject([{ promptTokens: 421, completionTokens: 50, milliCredits: 0 }]);
  });

  it('a model that answered and then failed: the run fails and its tokens are recorded all the same', async () => {
    const ran = await cli('run', 'babble');
    expect(ran.exitCode).not.toBe(0);
    const reported = babbler.reported;
    expect(reported.promptTokens).toBeGreaterThan(0);
    expect(await usageOf('babble')).toMatchObject([
      { apiId: 'babble', promptTokens: reported.promptTokens, completionTokens: reported.completionTokens, milliCredits: 0 },
    ]);
  });
});
