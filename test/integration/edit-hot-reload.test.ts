import { execa } from 'execa';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CLI_BIN, ensureBuilt } from '../support/build-once.js';
import { exampleConfigText } from '../support/example-configs.js';
import { watchesPath } from '../support/inotify.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { spawnServe, type ServeProcess } from './daemon-support.js';

let site: FixtureSite;
let dir: string;
let daemon: ServeProcess;
let key: string;

const cli = (args: string[]) => execa(process.execPath, [CLI_BIN, ...args], { cwd: dir, reject: false, env: { NO_COLOR: '1' } });

async function get(apiId: string): Promise<{ status: number; cache: string | null; body: { data: Record<string, unknown> | null } }> {
  const response = await fetch(`${daemon.url}/external/${apiId}`, { headers: { apikey: key } });
  return {
    status: response.status,
    cache: response.headers.get('x-pagejson-cache'),
    body: (await response.json()) as { data: Record<string, unknown> | null },
  };
}

/** Ask until the daemon serves what the predicate wants: its watcher and debounce run in its own process. */
async function eventually(apiId: string, wanted: (data: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
  return vi.waitFor(
    async () => {
      const answer = await get(apiId);
      if (answer.status === 200 && answer.body.data && wanted(answer.body.data)) return answer.body.data;
      throw new Error(`the daemon never served the edit; last answer: ${JSON.stringify(answer.body)}`);
    },
    { timeout: 10_000, interval: 100 },
  );
}

beforeAll(async () => {
  await ensureBuilt();
  site = await startFixtureSite();
  dir = await mkdtemp(join(tmpdir(), 'pagejson-edit-reload-'));
  await writeFile(join(dir, 'pagejson.json'), JSON.stringify({ fetch: { allowPrivateNetworks: true } }));
  await mkdir(join(dir, 'configs'));
  await writeFile(join(dir, 'configs/books.json'), exampleConfigText('books', site.origin));
  daemon = await spawnServe(dir);
  // Through the running daemon's admin socket: the daemon is the one writer of the state.
  const created = await cli(['keys', 'create', '--json']);
  expect(created.exitCode, created.stderr).toBe(0);
  key = (JSON.parse(created.stdout) as { key: string }).key;
}, 300_000);

afterAll(async () => {
  daemon?.child.kill('SIGTERM');
  await daemon?.child;
  await site?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a running daemon picks up saved edits without a restart', () => {
  it('serves the new structure after each edit, never the cached answer of the old revision', async () => {
    // It watches its configs folder (daemon-serve-cli.test.ts checks that --no-watch does not).
    expect(await watchesPath(daemon.child.pid!, join(dir, 'configs'))).toBe(true);
    const first = await get('books');
    expect(first.status).toBe(200);
    expect(first.body.data).toHaveProperty('count', 14);
    expect((await get('books')).cache).toBe('HIT');

    const removed = await cli(['edit', 'books', '--remove', 'count', '--rename', 'title=heading']);
    expect(removed.exitCode, removed.stderr).toBe(0);
    const afterRemove = await eventually('books', (data) => 'heading' in data);
    expect(afterRemove).not.toHaveProperty('count');
    expect(afterRemove.heading).toBe('All products');

    const dynamic = await cli(['edit', 'books', '--var', 'path:1=page']);
    expect(dynamic.exitCode, dynamic.stderr).toBe(0);
    const post = async (): Promise<{ status: number; data: Record<string, unknown> | null }> => {
      const response = await fetch(`${daemon.url}/external/books`, {
        method: 'POST',
        headers: { apikey: key, 'content-type': 'application/json' },
        body: JSON.stringify({ page: 'listing.html' }),
      });
      return { status: response.status, data: ((await response.json()) as { data: Record<string, unknown> | null }).data };
    };
    const posted = await vi.waitFor(
      async () => {
        const answer = await post();
        expect(answer.status).toBe(200);
        return answer;
      },
      { timeout: 10_000, interval: 100 },
    );
    expect(posted.status).toBe(200);
    expect(posted.data?.heading).toBe('All products');
  });
});
