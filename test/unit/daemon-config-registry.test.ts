import { watch } from 'node:fs';
import { rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createConfigRegistry, type ConfigRegistry, type ConfigRegistryEvent } from '../../src/core/registry/config-registry.js';
import { serializeConfig } from '../../src/core/config/write.js';
import { writeFileAtomic } from '../../src/core/shared/fs/atomic-write.js';
import { makeProject, pageConfig, type TempProject } from '../integration/daemon-support.js';

/** Hot reload (docs/daemon.md): watch the folder, debounce, validate, swap, keep the last good revision. */
let temp: TempProject | undefined;
let registry: ConfigRegistry | undefined;

afterEach(async () => {
  vi.useRealTimers();
  registry?.close();
  await temp?.cleanup();
  registry = undefined;
  temp = undefined;
});

/** The registry's events, and the first one to come that matches (the watcher's changes land when they land). */
function recordEvents() {
  const events: ConfigRegistryEvent[] = [];
  const waiting: Array<{ match: (event: ConfigRegistryEvent) => boolean; resolve: () => void }> = [];
  const onEvent = (event: ConfigRegistryEvent): void => {
    events.push(event);
    for (const waiter of waiting.filter((w) => w.match(event))) {
      waiting.splice(waiting.indexOf(waiter), 1);
      waiter.resolve();
    }
  };
  const next = (match: (event: ConfigRegistryEvent) => boolean): Promise<void> =>
    new Promise((resolve) => waiting.push({ match, resolve }));
  return { events, onEvent, next };
}

/** Resolves once the folder reports a change to `name` to a watcher of the test's own. */
function changeSeen(dir: string, name: string): Promise<void> {
  return new Promise((resolve) => {
    const watcher = watch(dir, (_event, changed) => {
      if (changed !== name) return;
      watcher.close();
      // Every watcher of the folder hears of a change in the same turn of the event loop: let that turn end.
      setImmediate(resolve);
    });
  });
}

describe('config registry', () => {
  it('loads valid configs and reports invalid ones without dropping the rest', async () => {
    temp = await makeProject([pageConfig('alpha', 'http://127.0.0.1:1/a'), pageConfig('beta', 'http://127.0.0.1:1/b')]);
    await writeFile(join(temp.project.configsDir, 'gamma.json'), '{ not json');
    registry = await createConfigRegistry({ dir: temp.project.configsDir, watch: false });
    expect(
      registry
        .list()
        .map((c) => c.apiId)
        .sort(),
    ).toEqual(['alpha', 'beta']);
    expect(registry.problems()).toHaveLength(1);
    expect(registry.problems()[0]!.file).toMatch(/gamma\.json$/);
  });

  it('follows edits made by atomic rename, keeps the last good revision of a file that turned invalid, and drops deleted files', async () => {
    temp = await makeProject([pageConfig('alpha', 'http://127.0.0.1:1/a'), pageConfig('beta', 'http://127.0.0.1:1/b')]);
    const { events, onEvent, next } = recordEvents();
    registry = await createConfigRegistry({ dir: temp.project.configsDir, watch: true, debounceMs: 20, onEvent });
    const alphaFile = join(temp.project.configsDir, 'alpha.json');
    // An event comes from inside a scan; settled() resolves once that scan has put its results in place.
    const applied = async (match: (event: ConfigRegistryEvent) => boolean) => {
      await next(match);
      await registry!.settled();
    };

    let landed = applied((e) => e.kind === 'loaded' && e.apiId === 'alpha' && e.revision === 2);
    await writeFileAtomic(alphaFile, serializeConfig(pageConfig('alpha', 'http://127.0.0.1:1/a2', { revision: 2 })));
    await landed;
    expect(registry.get('alpha')?.revision).toBe(2);
    expect(registry.get('alpha')!.url).toBe('http://127.0.0.1:1/a2');

    // Broken by hand (a plain write): the previous good revision keeps serving, and the problem is reported.
    landed = applied((e) => e.kind === 'invalid' && e.apiId === 'alpha');
    await writeFile(alphaFile, '{"apiId": "alpha", "url": 5}');
    await landed;
    expect(registry.problems().length).toBeGreaterThan(0);
    expect(registry.get('alpha')!.revision).toBe(2);
    expect(events.some((e) => e.kind === 'invalid' && e.keptPrevious === true)).toBe(true);

    // Fixed again by rename from another name in the folder.
    const staged = join(temp.project.configsDir, 'staged.tmp');
    await writeFile(staged, serializeConfig(pageConfig('alpha', 'http://127.0.0.1:1/a3', { revision: 3 })));
    landed = applied((e) => e.kind === 'loaded' && e.apiId === 'alpha' && e.revision === 3);
    await rename(staged, alphaFile);
    await landed;
    expect(registry.get('alpha')?.revision).toBe(3);
    expect(registry.problems()).toEqual([]);

    landed = applied((e) => e.kind === 'removed' && e.apiId === 'beta');
    await rm(join(temp.project.configsDir, 'beta.json'));
    await landed;
    expect(registry.get('beta')).toBeUndefined();

    landed = applied((e) => e.kind === 'loaded' && e.apiId === 'delta');
    await writeFileAtomic(join(temp.project.configsDir, 'delta.json'), serializeConfig(pageConfig('delta', 'http://127.0.0.1:1/d')));
    await landed;
    expect(registry.get('delta')).toBeDefined();
  });

  it('does not watch with watch off, and reload() picks the changes up (SIGHUP)', async () => {
    temp = await makeProject([pageConfig('alpha', 'http://127.0.0.1:1/a')]);
    // The debounce runs on the fake clock: a watching registry would have its scan due once the clock moves.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    registry = await createConfigRegistry({ dir: temp.project.configsDir, watch: false, debounceMs: 10 });
    const seen = changeSeen(temp.project.configsDir, 'alpha.json');
    await writeFileAtomic(
      join(temp.project.configsDir, 'alpha.json'),
      serializeConfig(pageConfig('alpha', 'http://127.0.0.1:1/a', { revision: 7 })),
    );
    await seen;
    vi.advanceTimersByTime(60_000);
    await registry.settled();
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
