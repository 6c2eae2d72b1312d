import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serializeConfig } from '../../src/core/config/write.js';
import { writeFileAtomic } from '../../src/core/shared/fs/atomic-write.js';
import { createRuntime, type Runtime, type RuntimeEvent } from '../../src/core/runtime.js';
import { buildApp, type DaemonApp } from '../../src/daemon/app.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { issueKey, makeProject, pageConfig, type TempProject } from './daemon-support.js';

/** Hot reload seen from the wire: edits serve new data at once (the revision is in the cache key). */
let site: FixtureSite;
let temp: TempProject;
let runtime: Runtime;
let app: DaemonApp;
let key: string;

beforeAll(async () => {
  site = await startFixtureSite();
  temp = await makeProject([pageConfig('page', `${site.origin}/daemon/echo?name=first`)]);
  runtime = await createRuntime(temp.project, { watch: true, watchDebounceMs: 20, memoryCacheOnly: true });
  app = await buildApp(runtime, { logger: false });
  key = (await issueKey(runtime.store)).key;
});

afterAll(async () => {
  await app?.close();
  await runtime?.close();
  await site?.close();
  await temp?.cleanup();
});

async function title(): Promise<string | null> {
  const response = await app.inject({ method: 'GET', url: '/external/page', headers: { apikey: key } });
  return response.statusCode === 200 ? (JSON.parse(response.body) as { data: { title: string } }).data.title : `${response.statusCode}`;
}

type ConfigChange = Extract<RuntimeEvent, { kind: 'config' }>['change'];

/** Resolves once the watcher has applied a change that matches (the event comes from inside its scan). */
function applied(match: (change: ConfigChange) => boolean): Promise<void> {
  return new Promise((resolve) => {
    const stop = runtime.subscribe((event) => {
      if (event.kind !== 'config' || !match(event.change)) return;
      stop();
      resolve(runtime.configs.settled());
    });
  });
}

describe('hot reload through the daemon', () => {
  it('serves an edit, keeps the last good revision of a broken file, and stops serving a deleted one', async () => {
    const file = join(temp.project.configsDir, 'page.json');
    expect(await title()).toBe('first');
    expect(await title()).toBe('first'); // now cached under revision 1

    let landed = applied((change) => change.kind === 'loaded' && change.revision === 2);
    await writeFileAtomic(file, serializeConfig(pageConfig('page', `${site.origin}/daemon/echo?name=second`, { revision: 2 })));
    await landed;
    expect(await title()).toBe('second');

    landed = applied((change) => change.kind === 'invalid');
    await writeFile(file, '{ "apiId": "page", ');
    await landed;
    expect(runtime.configs.problems().length).toBeGreaterThan(0);
    expect(await title()).toBe('second');
    const ready = JSON.parse((await app.inject({ method: 'GET', url: '/readyz' })).body) as { data: { configs: number; problems: number } };
    expect(ready.data).toMatchObject({ configs: 1, problems: 1 });

    landed = applied((change) => change.kind === 'removed');
    await rm(file);
    await landed;
    expect(await title()).toBe('404');
  });
});
