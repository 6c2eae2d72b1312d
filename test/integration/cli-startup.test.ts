import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN, ensureBuilt, REPO_ROOT } from '../support/build-once.js';

/**
 * What the CLI loads before it knows the command: heavy packages (HTTP clients, state stores, the server,
 * the HTML parser, schemas, browsers, model clients) load only in the commands that use them, so `--help`
 * and every command start fast. A module hook logs every module the process resolves.
 */
const HEAVY = [
  'undici',
  'lowdb',
  'fastify',
  'zod',
  'htmlparser2',
  'css-select',
  'playwright-core',
  '@crawlee',
  'openai',
  'keyv',
  'redis',
  '@redis',
  'sqlite3',
  'piscina',
  'preact',
  'open',
];

async function loadedPackages(args: string[]): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'pagejson-load-'));
  const log = join(dir, 'loaded.txt');
  try {
    const result = await execa(process.execPath, ['--import', join(REPO_ROOT, 'test/support/load-log/register.mjs'), CLI_BIN, ...args], {
      cwd: dir,
      env: { LOADED_LOG: log },
      reject: false,
    });
    expect(result.exitCode).toBe(0);
    const urls = (await readFile(log, 'utf8')).split('\n').filter(Boolean);
    const names = urls
      .map((url) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1])
      .filter((name): name is string => name !== undefined);
    return [...new Set(names)];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

beforeAll(async () => {
  await ensureBuilt();
});

describe('CLI start', () => {
  it('--help loads none of the heavy packages', async () => {
    const loaded = await loadedPackages(['--help']);
    // The hook saw the CLI's own packages, so it works.
    expect(loaded).toContain('commander');
    expect(loaded.filter((name) => HEAVY.some((heavy) => name === heavy || name.startsWith(`${heavy}/`)))).toEqual([]);
  });
});
