import { createServer, type Server } from 'node:net';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/main.js';
import type { CliContext } from '../../src/cli/context.js';
import { CLI_BIN, ensureBuilt } from '../support/build-once.js';
import { startFixtureSite, type FixtureSite } from '../support/site.js';
import { makeProject, type TempProject } from './daemon-support.js';

/**
 * What a new user meets past the quick start, each from the real CLI: usage errors exit 2 with did-you-mean,
 * errors that name the thing and the way out, every --help ending with examples, and the conventions
 * (`--json` everywhere, `$schema` in configs, readable logs on a terminal).
 */
let site: FixtureSite;
let temp: TempProject;
const cli = (...args: string[]) => execa(process.execPath, [CLI_BIN, ...args], { cwd: temp.root, reject: false, env: { NO_COLOR: '1' } });

beforeAll(async () => {
  await ensureBuilt();
  site = await startFixtureSite();
  temp = await makeProject([
    {
      apiId: 'jobs',
      url: `${site.origin}/jobs-board.html`,
      selector: 'ul.jobs',
      structure: [{ name: 'jobs', type: 'array', selector: 'li.job', fields: [{ name: 'title', type: 'string', selector: 'a.title' }] }],
    },
    { apiId: 'gone', url: `${site.origin}/faults/404`, structure: [{ name: 'title', type: 'string', selector: 'h1' }] },
  ]);
}, 300_000);
afterAll(async () => {
  await temp?.cleanup();
  await site?.close();
});

describe('usage errors', () => {
  it('exit 2 with did-you-mean, at every depth of commands', async () => {
    const scope = await cli('keys', 'create', '--scope', 'jbs');
    expect(scope.exitCode).toBe(2);
    expect(scope.stderr).toContain('--scope names "jbs", which is not an endpoint of this project (did you mean "jobs"?)');
    expect(JSON.parse((await cli('keys', 'list', '--json')).stdout)).toEqual([]);

    const server = await cli('openapi', '--server', 'notaurl');
    expect(server.exitCode).toBe(2);
    expect(server.stderr).toContain('--server must be an http:// or https:// URL, got "notaurl"');

    const unknownApi = await cli('run', 'job');
    expect(unknownApi.exitCode).toBe(2);
    expect(unknownApi.stderr).toContain('no config with apiId "job" in configs (did you mean "jobs"?)');

    const nested = await cli('keys', 'create', '--bogus');
    expect(nested.exitCode).toBe(2);
    expect(nested.stderr).toContain("unknown option '--bogus'");
    const model = await cli('generate', `${site.origin}/jobs-board.html`, '--yes', '--model', 'heuristc');
    expect(model.exitCode).toBe(2);
    expect(model.stderr).toContain('unknown model: heuristc (did you mean "heuristic"?)');
  });

  it('refuses in edit what validate refuses: a model the project lacks, an attribute that is not a name', async () => {
    const before = await readFile(join(temp.root, 'configs/jobs.json'), 'utf8');
    const model = await cli('edit', 'jobs', '--set', 'model=gpt-nowhere');
    expect(model.exitCode).toBe(2); // an argument naming nothing (README, exit codes)
    expect(model.stderr).toContain('model "gpt-nowhere" is not defined in pagejson.json');
    const attribute = await cli('edit', 'jobs', '--set', 'jobs.title.attribute=[href]');
    expect(attribute.exitCode).toBe(1);
    expect(attribute.stderr).toContain('"[href]" is not an attribute name');
    expect(await readFile(join(temp.root, 'configs/jobs.json'), 'utf8')).toBe(before);
    // A good edit gains $schema, so editors complete and check the file.
    expect((await cli('edit', 'jobs', '--set', 'description=Open jobs at the harbor')).exitCode).toBe(0);
    expect(JSON.parse(await readFile(join(temp.root, 'configs/jobs.json'), 'utf8')).$schema).toBe('./pagejson.config.schema.json');
  });
});

describe('errors name the thing and the way out', () => {
  it('a failed fetch names the URL, the scraper, what happened and what to try', async () => {
    const result = await cli('run', 'gone');
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(`error: could not fetch ${site.origin}/faults/404 with scraper 1 (http): `);
    expect(result.stderr).toMatch(/404/);
    // A page that is not there is not a block (issue 45): no bot-protection workaround is suggested.
    expect(result.stderr).toContain('the source page was not found (404)');
    expect(result.stderr).toContain("hint: check the config's url");
    expect(result.stderr).not.toContain('try scraper 2');
  });

  it('serve on a port in use says so and suggests another', async () => {
    const holder: Server = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as { port: number }).port;
    try {
      const result = await cli('serve', '--port', String(port));
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toContain(`error: port ${port} on 127.0.0.1 is already in use`);
      expect(result.stderr).toContain(`hint: stop what listens there, or pick another port: pagejson serve --port ${port + 1}`);
    } finally {
      holder.close();
    }
  });

  it('a scripted generate saves a config that names its schema', async () => {
    const result = await cli('generate', `${site.origin}/jobs-board.html`, '--id', 'board', '--selector', 'ul.jobs', '--yes', '--json');
    expect(result.exitCode).toBe(0);
    expect(JSON.parse(await readFile(join(temp.root, 'configs/board.json'), 'utf8')).$schema).toBe('./pagejson.config.schema.json');
  });
});

describe('conventions', () => {
  it("every command's --help ends with real examples", async () => {
    const out: string[] = [];
    const sink = { write: (text: string) => out.push(text) } as unknown as CliContext['stdout'];
    const ctx = { stdout: sink, stderr: sink, env: {}, cwd: temp.root, interactive: false, exitCode: 0 } as unknown as CliContext;
    const program = buildProgram(ctx);
    const paths: string[][] = [];
    const walk = (command: typeof program, path: string[]) => {
      for (const sub of command.commands) {
        paths.push([...path, sub.name()]);
        walk(sub, [...path, sub.name()]);
      }
    };
    walk(program, []);
    expect(paths.length).toBeGreaterThan(25);
    for (const path of paths) {
      const result = await cli(...path, '--help');
      const examples = result.stdout.split('\nExamples:\n')[1];
      expect(examples, `pagejson ${path.join(' ')} --help`).toBeDefined();
      const lines = examples!.trim().split('\n');
      expect(lines.length, `pagejson ${path.join(' ')} --help`).toBeGreaterThanOrEqual(2);
      // Real examples: each runs this very command (or sets up for it).
      expect(
        lines.some((line) => line.includes(`pagejson ${path.join(' ')}`)),
        `pagejson ${path.join(' ')} --help`,
      ).toBe(true);
    }
  });

  it('schema and openapi take --json like the rest', async () => {
    const schema = await cli('schema', 'jobs', '--json');
    expect(schema.exitCode).toBe(0);
    expect(JSON.parse(schema.stdout).title).toBe('jobs data');
    const openapi = await cli('openapi', '--json');
    expect(openapi.exitCode).toBe(0);
    expect(JSON.parse(openapi.stdout).openapi).toBe('3.1.0');
  });

  it('logs readable lines for a person (pretty) and JSON for machines', async () => {
    const read = async (env: Record<string, string>) => {
      const child = execa(process.execPath, [CLI_BIN, 'serve', '--port', '0'], {
        cwd: temp.root,
        reject: false,
        env: { NO_COLOR: '1', ...env },
      });
      let err = '';
      // Its last start-up line: once it is out, so is 'Server listening'.
      await new Promise<void>((resolve) => {
        child.stderr?.on('data', (chunk: Buffer) => {
          err += String(chunk);
          if (err.includes('state driver')) resolve();
        });
        void child.finally(() => resolve());
        // A bound, not a wait: the assertions below say what was missing.
        setTimeout(resolve, 10_000).unref();
      });
      child.kill('SIGTERM');
      await child;
      return err;
    };
    const pretty = await read({ PAGEJSON_LOG_FORMAT: 'pretty' });
    expect(pretty).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: Server listening at http/m);
    const json = await read({});
    expect(JSON.parse(json.split('\n').find((line) => line.includes('Server listening'))!)).toMatchObject({ level: 30 });
  });
});
