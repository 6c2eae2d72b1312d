import { rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createConfigRegistry, type ConfigRegistry, type ConfigRegistryEvent } from '../../src/core/registry/config-registry.js';
import { serializeConfig } from '../../src/core/config/write.js';
import { writeFileAtomic } from '../../src/core/shared/fs/atomic-write.js';
import { makeProject, pageConfig, type TempProject } from '../integration/daemon-support.js';

/** Hot reload (DESIGN.md section 11): watch the folder, debounce, validate, swap, keep the last good revision. */
let temp: TempProject | undefined;
let registry: ConfigRegistry | undefined;

afterEach(async () => {
  registry?.close();
  await temp?.cleanup();
  registry = undefined;
  temp = undefined;
});

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('config registry', () => {
  it('loads valid configs and reports invalid ones without dropping the rest', async () => {
    temp = await makeProject([pageConfig('alpha', 'http://127.0.0.1:1/a'), pageConfig('beta', 'http://127.0.0.1:1/b')]);
    await writeFile(join(temp.project.configsDir, 'gamma.json'), '{ not json');
    registry = await createConfigRegistry({ dir: temp.project.configsDir, watch: false });
    expect(registry.list().map((c) => c.apiId).sort()).toEqual(['alpha', 'beta']);
    expect(registry.problems()).toHaveLength(1);
    expect(registry.problems()[0]!.file).toMatch(/gamma\.json$/);
  });

  it('follows edits made by atomic rename, keeps the last good revision of a file that turned invalid, and drops deleted files', async () => {
    temp = await makeProject([pageConfig('alpha', 'http://127.0.0.1:1/a'), pageConfig('beta', 'http://127.0.0.1:1/b')]);
    const events: ConfigRegistryEvent[] = [];
    registry = await createConfigRegistry({ dir: temp.project.configsDir, watch: true, debounceMs: 20, onEvent: (e) => events.push(e) });
    const alphaFile = join(temp.project.configsDir, 'alpha.json');

    await writeFileAtomic(alphaFile, serializeConfig(pageConfig('alpha', 'http://127.0.0.1:1/a2', { revision: 2 })));
    await until(() => registry!.get('alpha')?.revision === 2, 'revision 2');
    expect(registry.get('alpha')!.url).toBe('http://127.0.0.1:1/a2');

    // Broken by hand (a plain write): the previous good revision keeps serving, and the problem is reported.
    await writeFile(alphaFile, '{"apiId": "alpha", "url": 5}');
    await until(() => registry!.problems().length > 0, 'a problem');
    expect(registry.get('alpha')!.revision).toBe(2);
    expect(events.some((e) => e.kind === 'invalid' && e.keptPrevious === true)).toBe(true);

    // Fixed again by rename from another name in the folder.
    const staged = join(temp.project.configsDir, 'staged.tmp');
    await writeFile(staged, serializeConfig(pageConfig('alpha', 'http://127.0.0.1:1/a3', { revision: 3 })));
    await rename(staged, alphaFile);
    await until(() => registry!.get('alpha')?.revision === 3, 'revision 3');
    expect(registry.problems()).toEqual([]);

    await rm(join(temp.project.configsDir, 'beta.json'));
    await until(() => registry!.get('beta') === undefined, 'beta removed');

    await writeFileAtomic(join(temp.project.configsDir, 'delta.json'), serializeConfig(pageConfig('delta', 'http://127.0.0.1:1/d')));
    await until(() => registry!.get('delta') !== undefined, 'delta added');
  });

  it('does not watch with watch off, and reload() picks the changes up (SIGHUP)', async () => {
    temp = await makeProject([pageConfig('alpha', 'http://127.0.0.1:1/a')]);
    registry = await createConfigRegistry({ dir: temp.project.configsDir, watch: false, debounceMs: 10 });
    await writeFileAtomic(join(temp.project.configsDir, 'alpha.json'), serializeConfig(pageConfig('alpha', 'http://127.0.0.1:1/a', { revision: 7 })));
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(registry.get('alpha')!.revision).toBe(1);
    await registry.reload();
    expect(registry.get('alpha')!.revision).toBe(7);
  });

  it('starts empty when the configs folder does not exist', async () => {
    temp = await makeProject([]);
    registry = await createConfigRegistry({ dir: join(temp.root, 'missing'), watch: true });
    expect(registry.list()).toEqual([]);
  });
});
