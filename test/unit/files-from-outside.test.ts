import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { chmod, chown, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { readSnapshots, writeSnapshot } from '../../src/core/health/snapshots.js';
import { loadProject, projectFromSettings } from '../../src/core/config/project.js';
import { ApiConfigSchema, ProjectSettingsSchema } from '../../src/core/config/schema.js';
import { keepRevision } from '../../src/core/edit/revisions.js';
import { ensurePrivateDir, ensurePrivateFile } from '../../src/core/shared/fs/private-files.js';
import { createLowdbStore } from '../../src/core/state/lowdb-store.js';
import { createKey } from '../../src/core/access/key-service.js';
import { acquireDaemonLock } from '../../src/daemon/lock.js';
import { refuseIfDaemonAlive } from '../../src/cli/state-client.js';

/**
 * Issue 40, items 4, 5 and 9 and the zombie pid: files and folders that arrive from outside (a pull request, a
 * shared machine) are never followed out, grown without bound or trusted. Each test replays the attack on
 * real files in a temp folder.
 */
let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pagejson-outside-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const SECRET = 'TOP-SECRET-VALUE';
const record = (data: Record<string, unknown>) =>
  `${JSON.stringify({ apiId: 'books', revision: 1, url: 'http://127.0.0.1:4173/', variables: {}, data })}\n`;

/** configs/__snapshots__/books with a good page beside whatever the test puts there. */
async function snapshotFolder(): Promise<{ configs: string; folder: string }> {
  const configs = join(dir, 'configs');
  const folder = join(configs, '__snapshots__', 'books');
  await mkdir(folder, { recursive: true });
  return { configs, folder };
}

describe('snapshots are read as configs are (item 4)', () => {
  it('refuses a data file linked to a file outside the repository, without printing what it holds', async () => {
    const { configs, folder } = await snapshotFolder();
    await writeFile(join(dir, 'elsewhere.json'), record({ token: SECRET }));
    await symlink(join(dir, 'elsewhere.json'), join(folder, 'default.json'));
    await writeFile(join(folder, 'default.html.gz'), gzipSync('<h1>A</h1>'));
    const error = await readSnapshots(configs, 'books').catch((caught: unknown) => caught as Error & { code: string });
    expect(error).toMatchObject({
      code: 'CONFIG_INVALID',
      message: 'snapshot books/default cannot be read: default.json is a symbolic link',
    });
    expect(JSON.stringify(error)).not.toContain(SECRET);
  });

  it('refuses a snapshot folder that is a link to a folder elsewhere', async () => {
    const configs = join(dir, 'configs');
    await mkdir(join(configs, '__snapshots__'), { recursive: true });
    await mkdir(join(dir, 'outside'));
    await writeFile(join(dir, 'outside', 'default.json'), record({ token: SECRET }));
    await writeFile(join(dir, 'outside', 'default.html.gz'), gzipSync('<h1>A</h1>'));
    await symlink(join(dir, 'outside'), join(configs, '__snapshots__', 'books'));
    await expect(readSnapshots(configs, 'books')).rejects.toThrow(/books is a symbolic link: snapshots are read from real folders/);
    // Nor are snapshots written through it.
    await expect(
      writeSnapshot(configs, { apiId: 'books', revision: 1, url: 'http://x.example/', variables: {}, data: {} }, '<p>'),
    ).rejects.toThrow(/symbolic link/);
    expect(readFileSync(join(dir, 'outside', 'default.json'), 'utf8')).toContain(SECRET);
  });

  it('refuses a page linked to /dev/zero, and a page that is a FIFO, without reading either', async () => {
    const { configs, folder } = await snapshotFolder();
    await writeSnapshot(
      configs,
      { apiId: 'books', revision: 1, url: 'http://127.0.0.1:4173/', variables: {}, data: { title: 'A' } },
      '<h1>A</h1>',
    );
    expect(await readSnapshots(configs, 'books')).toMatchObject([
      { name: 'default', html: '<h1>A</h1>', record: { data: { title: 'A' } } },
    ]);
    await rm(join(folder, 'default.html.gz'));
    await symlink('/dev/zero', join(folder, 'default.html.gz'));
    await expect(readSnapshots(configs, 'books')).rejects.toThrow('default.html.gz is a symbolic link');
    await rm(join(folder, 'default.html.gz'));
    await execa('mkfifo', [join(folder, 'default.html.gz')]);
    // A plain read would wait for a writer forever; the checked read never opens it for blocking.
    await expect(readSnapshots(configs, 'books')).rejects.toThrow('default.html.gz is a named pipe (FIFO)');
  });

  it('stops a gzip bomb at the ratio bound (64 MiB from 64 KB) instead of inflating it', async () => {
    const { configs, folder } = await snapshotFolder();
    await writeFile(join(folder, 'default.json'), record({ title: 'A' }));
    // Gzip members concatenated decompress one after another: eight members of 8 MiB of zeros.
    const member = gzipSync(Buffer.alloc(8 * 1024 * 1024));
    const bomb = Buffer.concat(Array.from({ length: 8 }, () => member));
    expect(bomb.length).toBeLessThan(100 * 1024);
    await writeFile(join(folder, 'default.html.gz'), bomb);
    await expect(readSnapshots(configs, 'books')).rejects.toThrow(
      new RegExp(`default.html.gz decompresses to more than ${bomb.length * 100} bytes`),
    );
  });

  it('stops a page of ordinary ratio at the size bound (10 MiB)', async () => {
    const { configs, folder } = await snapshotFolder();
    await writeFile(join(folder, 'default.json'), record({ title: 'A' }));
    // Hex text compresses about 2:1, like a dense page: far below the ratio bound.
    const text = randomBytes(6 * 1024 * 1024).toString('hex');
    const page = gzipSync(text, { level: 1 });
    expect(page.length * 100).toBeGreaterThan(10 * 1024 * 1024);
    await writeFile(join(folder, 'default.html.gz'), page);
    await expect(readSnapshots(configs, 'books')).rejects.toThrow(`default.html.gz decompresses to more than ${10 * 1024 * 1024} bytes`);
  });
});

describe('configs and dataDir stay inside the project (item 5)', () => {
  const settings = (values: Record<string, unknown>) => ProjectSettingsSchema.parse(values);

  it('refuses configs and dataDir that lead out of the project, by path or through a link', async () => {
    const root = join(dir, 'project');
    await mkdir(root);
    await mkdir(join(dir, 'etc'));
    expect(() => projectFromSettings(root, settings({ configs: '../etc' }))).toThrow(
      'pagejson.json at $.configs: configs "../etc" leads outside the project',
    );
    expect(() => projectFromSettings(root, settings({ dataDir: join(dir, 'state') }))).toThrow(
      /at \$\.dataDir: dataDir ".*" leads outside the project/,
    );
    await symlink(join(dir, 'etc'), join(root, 'configs'));
    expect(() => projectFromSettings(root, settings({}))).toThrow('configs "configs" leads outside the project through a symbolic link');
  });

  it('lets the operator allow it (PAGEJSON_ALLOW_OUTSIDE=1), and keeps honouring PAGEJSON_DATA_DIR', async () => {
    const root = join(dir, 'project');
    await mkdir(root);
    const outside = settings({ configs: '../etc', dataDir: '/var/lib/pagejson' });
    expect(() => projectFromSettings(root, outside, { PAGEJSON_ALLOW_OUTSIDE: 'yes' })).toThrow(
      expect.objectContaining({
        code: 'PROJECT_INVALID',
        hint: expect.stringContaining('set PAGEJSON_ALLOW_OUTSIDE=1 where pagejson runs') as string,
      }),
    );
    const allowed = projectFromSettings(root, outside, { PAGEJSON_ALLOW_OUTSIDE: '1' });
    expect(allowed).toMatchObject({ configsDir: join(dir, 'etc'), dataDir: '/var/lib/pagejson' });
    expect(projectFromSettings(root, settings({}), { PAGEJSON_DATA_DIR: join(dir, 'state') }).dataDir).toBe(join(dir, 'state'));
    expect(projectFromSettings(root, settings({ configs: 'endpoints/v1', dataDir: 'var/.pagejson' })).configsDir).toBe(
      join(root, 'endpoints/v1'),
    );
  });

  it('loads a project whose pagejson.json is a FIFO with an error, not a hang', async () => {
    const root = join(dir, 'project');
    await mkdir(root);
    await execa('mkfifo', [join(root, 'pagejson.json')]);
    await expect(loadProject({ cwd: root, env: {} })).rejects.toThrow(
      'pagejson.json: not read: it is a named pipe (FIFO) (only a regular file is read)',
    );
  });
});

describe("the data dir is the user's alone, and links in it are not followed (item 9)", () => {
  it('refuses a data dir that others can write (0777), and changes nothing in it', async () => {
    const data = join(dir, 'data');
    await mkdir(data);
    await chmod(data, 0o777);
    await expect(ensurePrivateDir(data)).rejects.toMatchObject({
      code: 'DATA_DIR_UNSAFE',
      message: expect.stringContaining('is writable by other users (mode 777)') as string,
      hint: expect.stringContaining(`chmod 700 ${data}`) as string,
    });
    expect((await stat(data)).mode & 0o777).toBe(0o777);
    // Nor does a save keep its earlier revision there (`pagejson edit` without a daemon).
    const config = ApiConfigSchema.parse({
      apiId: 'books',
      url: 'https://shop.example/',
      structure: [{ name: 'title', type: 'string', selector: 'h1' }],
    });
    await expect(keepRevision(data, config)).rejects.toMatchObject({ code: 'DATA_DIR_UNSAFE' });
    expect(existsSync(join(data, 'revisions'))).toBe(false);
  });

  it.runIf(process.getuid?.() === 0)('refuses a data dir another user owns (as root, the medium case)', async () => {
    const data = join(dir, 'data');
    await mkdir(data, { mode: 0o700 });
    await chown(data, 65534, 65534);
    await expect(ensurePrivateDir(data)).rejects.toMatchObject({
      code: 'DATA_DIR_UNSAFE',
      message: expect.stringContaining('belongs to another user (uid 65534)') as string,
    });
  });

  it('never chmods the target of a cache.sqlite link', async () => {
    const data = join(dir, 'data');
    await mkdir(data, { mode: 0o700 });
    const target = join(dir, 'precious.txt');
    await writeFile(target, 'mine', { mode: 0o644 });
    await chmod(target, 0o644);
    await symlink(target, join(data, 'cache.sqlite'));
    await expect(ensurePrivateDir(data)).rejects.toThrow(
      `${join(data, 'cache.sqlite')} is a symbolic link: pagejson never follows links in its data dir`,
    );
    await expect(ensurePrivateFile(join(data, 'cache.sqlite'))).rejects.toMatchObject({ code: 'DATA_DIR_UNSAFE' });
    expect((await stat(target)).mode & 0o777).toBe(0o644);
  });

  it('never writes journal lines through a dangling link, nor reads state through a link', async () => {
    const data = join(dir, 'data');
    await mkdir(data, { mode: 0o700 });
    const target = join(dir, 'planted.log');
    await symlink(target, join(data, 'state.json.journal'));
    const store = await createLowdbStore({ file: join(data, 'state.json') });
    await expect(createKey(store, { scope: null }, { freeMilliCredits: 1_000 })).rejects.toMatchObject({ code: 'DATA_DIR_UNSAFE' });
    await store.close().catch(() => undefined);
    expect(existsSync(target)).toBe(false);

    await rm(join(data, 'state.json.journal'));
    await writeFile(join(dir, 'other-state.json'), '{"version":1}');
    await symlink(join(dir, 'other-state.json'), join(data, 'state.json'));
    await expect(createLowdbStore({ file: join(data, 'state.json') })).rejects.toThrow('state.json is a symbolic link');
  });
});

describe('a zombie daemon counts as gone', () => {
  let parent: ChildProcess | undefined;
  afterEach(() => {
    parent?.kill('SIGKILL');
    parent = undefined;
  });

  /** A daemon killed and never reaped: its parent exec'd into a program that never waits for children. */
  async function zombie(): Promise<{ zombiePid: number; parentPid: number }> {
    parent = spawn('sh', ['-c', 'sleep 300 & echo $!; exec sleep 300'], { stdio: ['ignore', 'pipe', 'ignore'] });
    const [line] = (await once(parent.stdout!, 'data')) as [Buffer];
    const zombiePid = Number.parseInt(line.toString(), 10);
    // Kill it only once the shell has become sleep: a shell still running would reap its child.
    await vi.waitFor(() => expect(readFileSync(`/proc/${parent!.pid}/comm`, 'utf8')).toBe('sleep\n'), { timeout: 10_000, interval: 10 });
    process.kill(zombiePid, 'SIGKILL');
    await vi.waitFor(() => expect(readFileSync(`/proc/${zombiePid}/stat`, 'utf8')).toMatch(/\) Z /), { timeout: 10_000, interval: 20 });
    return { zombiePid, parentPid: parent.pid! };
  }

  it.runIf(existsSync('/proc/self/stat'))('takes over the lock of an unreaped killed daemon; a live one still holds it', async () => {
    const { zombiePid, parentPid } = await zombie();
    const lockPath = join(dir, 'daemon.lock');
    await writeFile(lockPath, `${zombiePid}\n`);
    await expect(refuseIfDaemonAlive(dir)).resolves.toBeUndefined();
    const lock = await acquireDaemonLock(lockPath, dir);
    expect((await readFile(lockPath, 'utf8')).trim()).toBe(String(process.pid));
    await lock.release();
    // The zombie's parent is alive and well: a lock in its name is still refused.
    await writeFile(lockPath, `${parentPid}\n`);
    await expect(acquireDaemonLock(lockPath, dir)).rejects.toMatchObject({ code: 'DAEMON_RUNNING' });
    await expect(refuseIfDaemonAlive(dir)).rejects.toMatchObject({ code: 'DAEMON_UNREACHABLE' });
  });
});
