import { accessSync, constants } from 'node:fs';

/**
 * Tests that need a system binary (Chromium, redis-server): outside CI a missing binary skips them with a
 * visible notice; under CI (see runningInCi) they run anyway and fail, so a CI machine without it can never
 * pass by skipping.
 */
export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Any non-empty CI other than `false`/`0` counts as CI: providers set `CI=1`, `CI=true` or `CI=yes`. */
export function runningInCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = (env.CI ?? '').trim().toLowerCase();
  return value !== '' && value !== 'false' && value !== '0';
}

export function skipWithoutBinary(available: boolean, what: string, install: string): boolean {
  if (available || runningInCi()) return false;
  console.warn(`\n[pagejson tests] SKIPPING ${what} tests: ${install}. Under CI these tests fail instead.\n`);
  return true;
}
