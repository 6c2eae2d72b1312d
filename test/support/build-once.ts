import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { execa } from 'execa';
import lockfile from 'proper-lockfile';

/**
 * Integration tests run the built CLI (`node bin/pagejson.js`), so `dist/` must match the sources. Test
 * files run in parallel workers: a lock file in the OS temp dir makes sure `npm run build` runs at most once,
 * and a stamp of the sources (paths, sizes, mtimes) skips the build entirely when dist is already current.
 */
const here = fileURLToPath(new URL('.', import.meta.url));
export const REPO_ROOT = here.includes('/dist/') ? join(here, '../../..') : join(here, '../..');
export const CLI_BIN = join(REPO_ROOT, 'bin/pagejson.js');

const STAMP_FILE = join(REPO_ROOT, 'dist/.build-stamp');

/**
 * A digest of everything tsc reads: scripts/lib/build-stamp.mjs, which `npm run build` also runs when it ends, so
 * that a build by `npm test` is not done again here. Loaded by path, as this file also runs from dist/.
 */
export async function sourceStamp(): Promise<string> {
  const script = pathToFileURL(join(REPO_ROOT, 'scripts/lib/build-stamp.mjs')).href;
  const { sourceStamp: stampOf } = (await import(script)) as { sourceStamp(root: string): Promise<string> };
  return stampOf(REPO_ROOT);
}

async function isCurrent(stamp: string): Promise<boolean> {
  if (!existsSync(join(REPO_ROOT, 'dist/src/cli/main.js'))) return false;
  try {
    return (await readFile(STAMP_FILE, 'utf8')).trim() === stamp;
  } catch {
    return false;
  }
}

let built: Promise<void> | undefined;

/** Build dist/ unless it is current. Safe to call from every test file and worker. */
export function ensureBuilt(): Promise<void> {
  built ??= buildIfStale();
  return built;
}

async function buildIfStale(): Promise<void> {
  if (await isCurrent(await sourceStamp())) return;
  const lockPath = join(tmpdir(), `pagejson-build-${createHash('sha256').update(REPO_ROOT).digest('hex').slice(0, 12)}.lock`);
  const release = await lockfile.lock(REPO_ROOT, {
    lockfilePath: lockPath,
    stale: 180_000,
    retries: { retries: 1_000, minTimeout: 100, maxTimeout: 500 },
  });
  try {
    // Another worker may have built while we waited for the lock.
    const stamp = await sourceStamp();
    if (await isCurrent(stamp)) return;
    const result = await execa('npm', ['run', 'build'], { cwd: REPO_ROOT, reject: false, all: true });
    if (result.exitCode !== 0) throw new Error(`npm run build failed (exit ${result.exitCode}):\n${result.all}`);
    await writeFile(STAMP_FILE, `${stamp}\n`);
  } finally {
    await release();
  }
}
