import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CLI_BIN, ensureBuilt } from '../support/build-once.js';
import { watchesPath } from '../support/inotify.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { makeProject, pageConfig, spawnServe, type ServeProcess, type TempProject } from './daemon-support.js';

/**
 * `pagejson serve` as users run it (the built CLI): ready line, second serve refused, state commands through
 * the admin socket while it runs, SIGHUP reload with --no-watch, SIGTERM exits 0 with state flushed.
 */
let site: FixtureSite;
let temp: TempProject;
let serve: ServeProcess | undefined;
let key: string;

const cli = (...args: string[]) => execa(process.execPath, [CLI_BIN, ...args], { cwd: temp.root, reject: false });

beforeAll(async () => {
  await ensureBuilt();
  site = await startFixtureSite();
  temp = await makeProject([pageConfig('page', `${site.origin}/daemon/echo?name=one`)]);
  const created = await cli('keys', 'create', '--json');
  expect(created.exitCode).toBe(0);
  key = (JSON.parse(created.stdout) as { key: string }).key;
}, 300_000);

afterAll(async () => {
  if (serve && serve.child.exitCode === null) serve.child.kill('SIGKILL');
  await site?.close();
  await temp?.cleanup();
});

describe('pagejson serve', () => {
  it('rejects a bad --port as a usage error (exit 2) with a hint', async () => {
    const result = await cli('serve', '--port', 'eighty');
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('--port must be a number');
    expect(result.stderr).toContain('hint:');
  });

  it('serves, refuses a second daemon, routes state commands through the socket, reloads on SIGHUP and stops on SIGTERM', async () => {
    serve = await spawnServe(temp.root, ['--no-watch']);
    expect(serve.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const first = await fetch(`${serve.url}/external/page`, { headers: { apikey: key } });
    expect(await first.json()).toEqual({ data: { title: 'one', kind: 'echo' }, errors: null });
    expect(first.headers.get('x-pagejson-credits-remaining')).toBe('99.6');

    // A second daemon on the same data dir fails fast with a message that says why and what to do.
    const second = await execa(process.execPath, [CLI_BIN, 'serve', '--port', '0'], { cwd: temp.root, reject: false, timeout: 20_000 });
    expect(second.exitCode).toBe(1);
    expect(second.stderr).toContain('another pagejson daemon');
    expect(second.stderr).toMatch(/hint:/);

    // The admin socket is private, and `credits` goes through it: a grant lands in the daemon's own balance.
    expect((await stat(join(temp.project.dataDir, 'admin.sock'))).mode & 0o777).toBe(0o600);
    expect((await cli('credits', 'grant', '5')).exitCode).toBe(0);
    const credits = await cli('credits', '--json');
    expect(JSON.parse(credits.stdout)).toEqual({ account: 'default', balance: 104.6 });
    const afterGrant = await fetch(`${serve.url}/external/page`, { headers: { apikey: key } });
    expect(afterGrant.headers.get('x-pagejson-credits-remaining')).toBe('104.2');

    // --no-watch: an edit is not picked up until SIGHUP. No wait could show that; the daemon holding no watch
    // on the folder (the kernel's list of its inotify watches) does.
    await temp.writeConfig(pageConfig('page', `${site.origin}/daemon/echo?name=two`, { revision: 2 }));
    expect(await watchesPath(serve.child.pid!, temp.project.configsDir)).toBe(false);
    const url = serve.url;
    const title = async () =>
      ((await (await fetch(`${url}/external/page`, { headers: { apikey: key } })).json()) as { data: { title: string } }).data.title;
    expect(await title()).toBe('one');
    serve.child.kill('SIGHUP');
    // The reload runs in the daemon's process, when it gets to it.
    await vi.waitFor(async () => expect(await title()).toBe('two'), { timeout: 5_000, interval: 50 });

    serve.child.kill('SIGTERM');
    const result = await serve.child;
    expect(result.exitCode).toBe(0);
    const state = JSON.parse(await readFile(join(temp.project.dataDir, 'state.json'), 'utf8')) as {
      accounts: Record<string, { balance: number }>;
    };
    // 100 + 5 granted − 4 requests × 0.4 (at least 4; the SIGHUP poll may have made more).
    const requests = Math.round((105_000 - state.accounts.default!.balance) / 400);
    expect(requests).toBeGreaterThanOrEqual(4);
    expect(105_000 - requests * 400).toBe(state.accounts.default!.balance);
    await expect(stat(join(temp.project.dataDir, 'daemon.lock'))).rejects.toThrow();
    await expect(stat(join(temp.project.dataDir, 'admin.sock'))).rejects.toThrow();
  });
});
