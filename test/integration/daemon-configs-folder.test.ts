import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { serializeConfig } from '../../src/core/config/write.js';
import { writeFileAtomic } from '../../src/core/shared/fs/atomic-write.js';
import { createRuntime, type Runtime } from '../../src/core/runtime.js';
import { makeProject, pageConfig, type TempProject } from './daemon-support.js';

/** A daemon started before the first `generate` (no configs/ yet) still serves the configs that appear. */
let temp: TempProject;
let runtime: Runtime;

beforeAll(async () => {
  temp = await makeProject([]);
  await rm(temp.project.configsDir, { recursive: true, force: true });
  runtime = await createRuntime(temp.project, { watch: true, memoryCacheOnly: true });
});

afterAll(async () => {
  await runtime?.close();
  await temp?.cleanup();
});

describe('a project without a configs folder', () => {
  it('gets the folder created and watched, so a config written later is served without a reload', async () => {
    expect(existsSync(temp.project.configsDir)).toBe(true);
    expect(runtime.configs.list()).toEqual([]);
    await writeFileAtomic(join(temp.project.configsDir, 'late.json'), serializeConfig(pageConfig('late', 'http://127.0.0.1:9/late.html')));
    await vi.waitFor(() => expect(runtime.configs.get('late')?.apiId).toBe('late'), { timeout: 10_000, interval: 50 });
  });
});
