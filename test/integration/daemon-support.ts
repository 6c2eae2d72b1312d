import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { execa, type ResultPromise } from 'execa';
import { CLI_BIN } from '../support/build-once.js';
import { loadProject, type Project } from '../../src/core/config/project.js';
import type { ApiConfigInput, ProjectSettingsInput } from '../../src/core/config/schema.js';
import { serializeConfig } from '../../src/core/config/write.js';
import { createKey } from '../../src/core/access/key-service.js';
import type { StateStore } from '../../src/core/state/types.js';

/** Shared set-up of the daemon tests: a temp project with real files, keys made through the real service. */
export interface TempProject {
  root: string;
  project: Project;
  writeConfig(config: ApiConfigInput): Promise<string>;
  cleanup(): Promise<void>;
}

export function pageConfig(apiId: string, url: string, extra: Partial<ApiConfigInput> = {}): ApiConfigInput {
  return {
    apiId,
    url,
    caching: true,
    structure: [
      { name: 'title', type: 'string', selector: 'h1' },
      { name: 'kind', type: 'string', selector: 'p.kind' },
    ],
    ...extra,
  };
}

export async function makeProject(configs: ApiConfigInput[], settings: ProjectSettingsInput = {}): Promise<TempProject> {
  const root = await mkdtemp(join(tmpdir(), 'pagejson-'));
  const full: ProjectSettingsInput = {
    ...settings,
    fetch: { timeoutMs: 5_000, allowPrivateNetworks: true, perOriginConcurrency: 50, ...settings.fetch },
    // Daemons of parallel tests must not compete for the default metrics port.
    metrics: { listen: '127.0.0.1:0', ...settings.metrics },
  };
  await writeFile(join(root, 'pagejson.json'), `${JSON.stringify(full, null, 2)}\n`);
  await mkdir(join(root, 'configs'));
  const writeConfig = async (config: ApiConfigInput): Promise<string> => {
    const file = join(root, 'configs', `${config.apiId}.json`);
    await writeFile(file, serializeConfig(config));
    return file;
  };
  for (const config of configs) await writeConfig(config);
  const project = await loadProject({ cwd: root, env: {} });
  return { root, project, writeConfig, cleanup: () => rm(root, { recursive: true, force: true }) };
}

export async function issueKey(
  store: StateStore,
  options: { scope?: string[]; account?: string; freeCredits?: number } = {},
): Promise<{ id: string; key: string; account: string }> {
  const created = await createKey(
    store,
    { scope: options.scope ?? null, account: options.account },
    { freeMilliCredits: Math.round((options.freeCredits ?? 100) * 1000) },
  );
  return { id: created.id, key: created.key, account: created.account };
}

/** A writable that keeps everything written to it: pino output of an app under test. */
export function captureStream(): Writable & { text(): string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      chunks.push(String(chunk));
      callback();
    },
  }) as Writable & { text(): string };
  stream.text = () => chunks.join('');
  return stream;
}

export function envelopeError(message: string, code: string): string {
  return JSON.stringify({ data: null, errors: [{ message, code }] });
}

export interface ServeProcess {
  child: ResultPromise;
  url: string;
  stderr(): string;
}

/** `node bin/pagejson.js serve` in a project, resolved once it prints its address (the built CLI). */
export async function spawnServe(root: string, args: string[] = [], env: Record<string, string> = {}): Promise<ServeProcess> {
  const child = execa(process.execPath, [CLI_BIN, 'serve', '--port', '0', ...args], {
    cwd: root,
    env: { PAGEJSON_LOG_LEVEL: 'warn', ...env },
    reject: false,
    buffer: false,
  });
  let out = '';
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => (err += String(chunk)));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      out += String(chunk);
      const match = /at (http:\/\/[^\s]+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    void child.then((result) => reject(new Error(`serve exited (${result.exitCode}) before it was ready: ${err}`)));
  });
  return { child, url, stderr: () => err };
}
