import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiConfigInput } from '../../src/core/config/schema.js';
import { CLI_BIN, ensureBuilt } from '../support/build-once.js';
import { replyField, startFakeLlm, type FakeLlm } from '../support/fake-llm.js';
import { GOODS } from '../support/site-routes/heal-trust.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { makeProject, type TempProject } from './daemon-support.js';

/**
 * Issue 52, item 4(c): a field the model fills when the endpoint is served (no selector) was judged by `heal` on
 * the repair's extraction, which never holds it: "summary: empty in 1 of 1", the recovery one value short, and
 * the exit code 1 after a repair that brought every selector's value back. The model is the fake
 * OpenAI-compatible server; its repair also names a selector for the model field, which must not turn it into
 * a selector field.
 */
let site: FixtureSite;
let llm: FakeLlm;
let temp: TempProject;

beforeAll(async () => {
  await ensureBuilt();
  [site, llm] = await Promise.all([startFixtureSite(), startFakeLlm()]);
  const summary = 'Seven plain goods for every day.';
  const config: ApiConfigInput = {
    apiId: 'goods',
    url: `${site.origin}/trust/goods`,
    model: 'local',
    structure: [
      { name: 'heading', type: 'string', selector: 'h1' },
      { name: 'goods', type: 'array', items: { type: 'string' }, selector: 'ul.goods > li.good > h3.good-name' },
      { name: 'summary', type: 'string', description: 'one sentence on what the shop sells' },
    ],
    generated: { at: '2026-01-01T00:00:00.000Z', model: 'local', scraper: 1, sample: { heading: 'Goods', goods: GOODS, summary } },
  };
  temp = await makeProject([config], {
    models: { local: { baseURL: llm.baseURL, model: 'm', maxRetries: 0 } },
    extraction: { timeoutMs: 60_000 },
    fetch: { timeoutMs: 60_000 },
  });
  site.state.set('goods', '2');
}, 600_000);
afterAll(async () => {
  site?.state.delete('goods');
  await Promise.all([site?.close(), llm?.close(), temp?.cleanup()]);
});

const cli = (...args: string[]) => execa(process.execPath, [CLI_BIN, ...args], { cwd: temp.root, reject: false, env: { NO_COLOR: '1' } });

describe('heal of an endpoint with a model field', () => {
  it('judges and counts only what selectors read, says which fields the model fills, and keeps the model field a model field', async () => {
    // The model's repair: a wrong selector for the list, and a selector for the model field.
    const reply = {
      json: {
        structure: [
          replyField('heading', 'string', 'h1'),
          replyField('goods', 'array', 'li.gone', { items: { type: 'string', attribute: null } }),
          replyField('summary', 'string', 'h1'),
        ],
      },
    };
    llm.script([reply, reply]);

    const shown = await cli('heal', 'goods');
    expect(shown.stdout, shown.stderr).toContain('recovers 8 of 8 last good values (100%)');
    expect(shown.stdout).toContain('filled by the model when served, not judged here: summary');
    expect(shown.stdout).toContain('with the repair: healthy');
    expect(shown.stdout).not.toContain('summary: empty');

    const healed = await cli('heal', 'goods', '--yes', '--json');
    expect(healed.exitCode, healed.stdout + healed.stderr).toBe(0);
    const report = JSON.parse(healed.stdout) as {
      recovery: { found: number; total: number };
      written: boolean;
      modelFields: string[];
      withRepair: { state: string; findings: string[] };
      health: { state: string };
    };
    expect(report.recovery).toEqual({ found: 8, total: 8 });
    expect(report.modelFields).toEqual(['summary']);
    expect(report.withRepair).toMatchObject({ state: 'healthy', findings: [] });
    expect(report.written).toBe(true);
    expect(report.health.state).toBe('healthy');
    const saved = JSON.parse(await readFile(join(temp.root, 'configs', 'goods.json'), 'utf8')) as ApiConfigInput;
    const fields = Object.fromEntries(saved.structure.map((field) => [field.name, field]));
    expect(fields.summary!.selector).toBeUndefined();
    expect(fields.goods!.selector).toContain('x9f');
  }, 240_000);
});
