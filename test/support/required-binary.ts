import { accessSync, constants } from 'node:fs';

/**
 * Tests that need a system binary (Chromium, redis-server): outside CI a missing binary skips them with a
 * visible notice; under CI=true they run anyway and fail, so a CI machine without it can never pass by skipping.
 */
export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function skipWithoutBinary(available: boolean, what: string, install: string): boolean {
  if (available || process.env.CI === 'true') return false;
  console.warn(`\n[pagejson tests] SKIPPING ${what} tests: ${install}. Under CI=true these tests fail instead.\n`);
  return true;
}
