import { execa } from 'execa';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, ensureBuilt } from '../support/build-once.js';
import { exampleConfigText } from '../support/example-configs.js';

/**
 * The README's exit codes ("CLI reference"): 2 for an argument naming nothing (an unknown apiId, key id, model
 * or scope), 1 for a failure, 0 for success, across the commands that take such arguments.
 */
let dir: string;

const cli = (args: string[]) =>
  execa(process.execPath, [CLI_BIN, ...args], {
    cwd: dir,
    reject: false,
    env: { NO_COLOR: '1', CI: 'true', PAGEJSON_DATA_DIR: '', OPENAI_API_KEY: '', OPENAI_BASE_URL: '' },
  });

beforeAll(async () => {
  await ensureBuilt();
  dir = await mkdtemp(join(tmpdir(), 'pagejson-exit-codes-'));
  await writeFile(join(dir, 'pagejson.json'), '{}\n');
  await mkdir(join(dir, 'configs'));
  await writeFile(join(dir, 'configs/books.json'), exampleConfigText('books', 'http://127.0.0.1:9'));
}, 300_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('exit codes as the README promises', () => {
  it('exits 2 with the error and a hint for every argument naming nothing', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['usage', '--key', 'k_nothere'], /^error: no key with id "k_nothere"\nhint: /],
      [['usage', '--api', 'nothere'], /^error: no config with apiId "nothere"\nhint: /],
      [['show', 'nothere'], /^error: no config with apiId "nothere"/],
      [['keys', 'revoke', 'k_nothere'], /^error: no key with id "k_nothere"/],
      [['keys', 'create', '--scope', 'nothere'], /^error: --scope names "nothere"/],
      [['edit', 'books', '--var', 'query:missing=foo'], /^error: the url has no query parameter "missing"\nhint: /],
      [['edit', 'books', '--set', 'model=nomodel'], /^error: model "nomodel" is not defined in pagejson.json/],
      [['generate', 'http://127.0.0.1:9/', '--model', 'nomodel', '--yes'], /^error: unknown model: nomodel/],
    ];
    for (const [args, message] of cases) {
      const result = await cli(args);
      expect(result.exitCode, `pagejson ${args.join(' ')}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toMatch(message);
    }
  });

  it('exits 0 for usage of a key or endpoint that exists, even with no usage yet', async () => {
    const created = await cli(['keys', 'create', '--label', 'exit-codes', '--json']);
    expect(created.exitCode, created.stderr).toBe(0);
    const { id } = JSON.parse(created.stdout) as { id: string };
    for (const args of [
      ['usage', '--key', id],
      ['usage', '--api', 'books'],
    ]) {
      const result = await cli(args);
      expect(result.exitCode, `pagejson ${args.join(' ')}: ${result.stderr}`).toBe(0);
      expect(result.stdout).toContain('no usage in the last 30 days');
    }
  });
});
