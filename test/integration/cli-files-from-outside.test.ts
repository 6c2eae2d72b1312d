import { chmod, lstat, mkdir, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { execa } from 'execa';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/build-once.js';
import { createCliProject, type CliProject } from '../support/cli-project.js';
import { exampleConfigText } from '../support/example-configs.js';

/**
 * Issue 40 items 4, 5, 9 and 10 replayed on the CLI as a process: what a pull request or another user can put
 * in the repository or the data dir is refused with a message, never followed, echoed or waited on.
 */
const SECRET = 'TOP-SECRET-VALUE';
const ORIGIN = 'http://127.0.0.1:4173';

let project: CliProject;
beforeAll(async () => {
  await ensureBuilt();
}, 300_000);
beforeEach(async () => {
  project = await createCliProject();
  const init = await project.run(['init']);
  expect(init.exitCode).toBe(0);
  await project.write('configs/books.json', exampleConfigText('books', ORIGIN));
});
afterEach(async () => {
  await project.remove();
});

describe('validate (items 5 and 10)', () => {
  it('reports a FIFO in configs/ and finishes instead of waiting for a writer', async () => {
    await execa('mkfifo', [join(project.dir, 'configs', 'pipe.json')]);
    const result = await project.run(['validate', '--format', 'json'], { timeoutMs: 30_000 });
    expect(result.timedOut).toBe(false);
    expect(result.exitCode).toBe(1);
    const report = JSON.parse(result.stdout) as { problems: Array<{ file: string; message: string }> };
    expect(report.problems).toContainEqual(expect.objectContaining({ file: 'configs/pipe.json', message: 'skipped: a named pipe (FIFO)' }));
  });

  it('does not read or echo a configs folder outside the project unless the operator allows it', async () => {
    const elsewhere = `${project.dir}-elsewhere`;
    await mkdir(elsewhere, { recursive: true });
    await writeFile(join(elsewhere, 'leak.json'), `{"apiId": "leak", "url": "${SECRET}"}\n`);
    const settings = JSON.parse(await project.read('pagejson.json')) as Record<string, unknown>;
    await project.write('pagejson.json', `${JSON.stringify({ ...settings, configs: elsewhere }, null, 2)}\n`);
    try {
      const refused = await project.run(['validate']);
      expect(refused.exitCode).toBe(1);
      expect(refused.stdout).toMatch(/pagejson\.json:\d+:\d+ \$\.configs: configs ".*-elsewhere" leads outside the project/);
      expect(refused.stdout).toContain('PAGEJSON_ALLOW_OUTSIDE=1');
      expect(refused.stdout + refused.stderr).not.toContain(SECRET);
      // The commands that load the project refuse it too.
      const listed = await project.run(['list']);
      expect(listed.exitCode).toBe(1);
      expect(listed.stderr).toContain('leads outside the project');

      const allowed = await project.run(['validate'], { env: { PAGEJSON_ALLOW_OUTSIDE: '1' } });
      expect(allowed.stdout).toContain('leak.json');
    } finally {
      await execa('rm', ['-rf', elsewhere]);
    }
  });
});

describe('init --yes (item 5)', () => {
  it('replaces a schema file that is a link instead of writing through it, and writes nothing outside the project', async () => {
    const outside = `${project.dir}-bashrc`;
    await writeFile(outside, 'mine\n');
    const elsewhere = `${project.dir}-elsewhere`;
    await mkdir(elsewhere, { recursive: true });
    try {
      const schema = join(project.dir, 'configs', 'pagejson.config.schema.json');
      await rm(schema);
      await symlink(outside, schema);
      const refreshed = await project.run(['init', '--yes']);
      expect(refreshed.exitCode).toBe(0);
      expect(await readFile(outside, 'utf8')).toBe('mine\n');
      expect((await lstat(schema)).isFile()).toBe(true);

      const settings = JSON.parse(await project.read('pagejson.json')) as Record<string, unknown>;
      await project.write('pagejson.json', `${JSON.stringify({ ...settings, configs: elsewhere }, null, 2)}\n`);
      const refused = await project.run(['init', '--yes']);
      expect(refused.exitCode).toBe(1);
      expect(refused.stderr).toContain('leads outside the project');
      expect(await readdir(elsewhere)).toEqual([]);
    } finally {
      await execa('rm', ['-rf', outside, elsewhere]);
    }
  });
});

describe('test (item 4)', () => {
  it('does not print the values of a snapshot linked to a file outside the repository', async () => {
    const folder = join(project.dir, 'configs', '__snapshots__', 'books');
    await mkdir(folder, { recursive: true });
    const outside = join(project.dir, '..', `${project.dir.split('/').pop()}-secrets.json`);
    await writeFile(
      outside,
      `${JSON.stringify({ apiId: 'books', revision: 1, url: `${ORIGIN}/`, variables: {}, data: { token: SECRET, password: SECRET } })}\n`,
    );
    try {
      await symlink(outside, join(folder, 'default.json'));
      await writeFile(join(folder, 'default.html.gz'), gzipSync('<main><h1>A</h1></main>'));
      const result = await project.run(['test', '--format', 'github']);
      expect(result.exitCode).toBe(1);
      expect(result.stdout + result.stderr).not.toContain(SECRET);
      expect(result.stderr).toContain('snapshot books/default cannot be read: default.json is a symbolic link');
    } finally {
      await execa('rm', ['-f', outside]);
    }
  });
});

describe('the data dir (item 9)', () => {
  it('refuses a data dir others can write, before opening anything in it', async () => {
    const data = join(project.dir, '.pagejson');
    await mkdir(data);
    await chmod(data, 0o777);
    const result = await project.run(['keys', 'create', '--label', 'x']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(`error: the data dir ${data} is writable by other users (mode 777)`);
    expect(result.stderr).toContain(`hint: make it private with chmod 700 ${data}`);
    expect(existsSync(join(data, 'state.json'))).toBe(false);
  });

  it('does not write journal lines through a dangling link (keys create)', async () => {
    const data = join(project.dir, '.pagejson');
    await mkdir(data, { mode: 0o700 });
    const planted = join(project.dir, 'planted.log');
    await symlink(planted, join(data, 'state.json.journal'));
    const result = await project.run(['keys', 'create', '--label', 'x']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(`${join(data, 'state.json.journal')} is a symbolic link: pagejson never follows links in its data dir`);
    expect(existsSync(planted)).toBe(false);
  });

  it('does not start on a data dir whose cache.sqlite is a link, and leaves its target as it was', async () => {
    const data = join(project.dir, '.pagejson');
    await mkdir(data, { mode: 0o700 });
    const target = join(project.dir, 'precious.txt');
    await writeFile(target, 'mine');
    await chmod(target, 0o644);
    await symlink(target, join(data, 'cache.sqlite'));
    const result = await project.run(['serve', '--port', '0'], { timeoutMs: 30_000 });
    expect(result.timedOut).toBe(false);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('cache.sqlite is a symbolic link');
    expect((await stat(target)).mode & 0o777).toBe(0o644);
  });
});
