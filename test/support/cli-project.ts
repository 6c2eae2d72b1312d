import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { CLI_BIN } from './build-once.js';
import { exampleConfigText } from './example-configs.js';

/**
 * A temporary user project for CLI integration tests: the built CLI run as a real process (execa) inside a
 * temp folder. Colours off and no TTY, as in CI.
 */
export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** The process was still running at the deadline and was killed: a hang. */
  timedOut: boolean;
}

export interface CliProject {
  dir: string;
  run(args: string[], options?: { env?: Record<string, string>; timeoutMs?: number }): Promise<CliResult>;
  write(relativePath: string, text: string): Promise<void>;
  read(relativePath: string): Promise<string>;
  remove(): Promise<void>;
}

export async function createCliProject(): Promise<CliProject> {
  const dir = await mkdtemp(join(tmpdir(), 'pagejson-'));
  return {
    dir,
    run: async (args, options = {}) => {
      const result = await execa(process.execPath, [CLI_BIN, ...args], {
        cwd: dir,
        reject: false,
        stdin: 'ignore',
        env: { NO_COLOR: '1', CI: 'true', PAGEJSON_DATA_DIR: '', ...options.env },
        timeout: options.timeoutMs ?? 60_000,
      });
      return { exitCode: result.exitCode ?? -1, stdout: result.stdout, stderr: result.stderr, timedOut: result.timedOut };
    },
    write: (relativePath, text) => writeFile(join(dir, relativePath), text),
    read: (relativePath) => readFile(join(dir, relativePath), 'utf8'),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** `init`, allow fetching from loopback (the fixture site), and copy the example configs pointed at `origin`. */
export async function initWithExamples(
  project: CliProject,
  origin: string,
  apiIds: readonly string[] = ['books', 'countries', 'product'],
): Promise<void> {
  const init = await project.run(['init']);
  if (init.exitCode !== 0) throw new Error(`pagejson init failed: ${String(init.stderr)}`);
  const settings = JSON.parse(await project.read('pagejson.json')) as { fetch: Record<string, unknown> };
  settings.fetch.allowPrivateNetworks = true;
  settings.fetch.timeoutMs = 10_000;
  await project.write('pagejson.json', `${JSON.stringify(settings, null, 2)}\n`);
  for (const apiId of apiIds) await project.write(`configs/${apiId}.json`, exampleConfigText(apiId, origin));
}
