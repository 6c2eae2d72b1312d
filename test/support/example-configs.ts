import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApiConfigSchema, type ApiConfig } from '../../src/core/config/schema.js';

/**
 * The example configs of configs/ point at the fixture site's conventional address (EXAMPLE_ORIGIN, the
 * demo's default port). Tests start the site on a free port and swap the origin in.
 */
export const EXAMPLE_ORIGIN = 'http://127.0.0.1:4173';
const here = fileURLToPath(new URL('.', import.meta.url));
const repoRoot = here.includes('/dist/') ? join(here, '../../..') : join(here, '../..');
export const EXAMPLE_CONFIGS_DIR = join(repoRoot, 'configs');
export const EXAMPLE_CONFIG_IDS = ['books', 'countries', 'product'] as const;

/** The text of configs/<apiId>.json with the fixture site's real origin in its url. */
export function exampleConfigText(apiId: string, origin: string): string {
  return readFileSync(join(EXAMPLE_CONFIGS_DIR, `${apiId}.json`), 'utf8')
    .split(EXAMPLE_ORIGIN)
    .join(origin);
}

export function exampleConfig(apiId: string, origin: string): ApiConfig {
  return ApiConfigSchema.parse(JSON.parse(exampleConfigText(apiId, origin)));
}
