import { lstatSync, statSync, watch, type FSWatcher, type Stats } from 'node:fs';
import { lstat, mkdir, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { listConfigFiles, loadConfigFile, loadConfigFileSync, type ConfigLoadResult } from './load.js';
import type { ApiConfig, ConfigProblem } from '../config/index.js';

/**
 * The configs a daemon serves, kept current while it runs (docs/daemon.md). It watches the directory,
 * not the files: a watch on a file stops firing after an atomic rename, which is how the CLI, editors and
 * git write. Events are debounced, then every file whose stat changed is re-read and validated. A file that
 * turns invalid keeps serving its last good revision (and is reported); a deleted file stops serving.
 */
export interface ConfigRegistryEvent {
  kind: 'loaded' | 'removed' | 'invalid';
  file: string;
  apiId?: string;
  revision?: number;
  problems?: ConfigProblem[];
  /** For `invalid`: whether an earlier good revision keeps serving. */
  keptPrevious?: boolean;
}

export interface ConfigRegistry {
  get(apiId: string): ApiConfig | undefined;
  /** The file that serves an apiId (what an edit must write). */
  fileOf(apiId: string): string | undefined;
  list(): ApiConfig[];
  /** Problems of files that are invalid right now. */
  problems(): ConfigProblem[];
  /** Re-read every file (SIGHUP). Resolves when the new set is in place. */
  reload(): Promise<void>;
  /** Resolves when pending watch events have been applied (tests, shutdown). */
  settled(): Promise<void>;
  close(): void;
}

export interface ConfigRegistryOptions {
  dir: string;
  watch: boolean;
  debounceMs?: number;
  onEvent?: (event: ConfigRegistryEvent) => void;
}

interface FileState {
  signature: string;
  /** The config this file serves: the current one, or the last good one when the file turned invalid. */
  config: ApiConfig | undefined;
  problems: ConfigProblem[];
}

const SCAN_CONCURRENCY = 64;

interface Signed {
  signature: string;
  link: Stats;
}

const signed = (link: Stats, target: Stats): Signed => ({ signature: `${target.ino}:${target.size}:${target.mtimeMs}`, link });

export async function createConfigRegistry(options: ConfigRegistryOptions): Promise<ConfigRegistry> {
  const files = new Map<string, FileState>();
  let byApiId = new Map<string, ApiConfig>();
  let fileByApiId = new Map<string, string>();
  let watcher: FSWatcher | undefined;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let closed = false;
  const emit = (event: ConfigRegistryEvent): void => options.onEvent?.(event);

  /**
   * The file's change signature, and its lstat (handed to the loader, which would otherwise take it again).
   * lstat: the signature of a link is its target's (the link's own when it dangles); a FIFO answers lstat at
   * once (no open, no wait).
   */
  async function signatureOf(file: string): Promise<Signed | undefined> {
    try {
      const link = await lstat(file);
      return signed(link, link.isSymbolicLink() ? await stat(file).catch(() => link) : link);
    } catch {
      return undefined;
    }
  }

  /** signatureOf with blocking calls, for the first load. */
  function signatureOfSync(file: string): Signed | undefined {
    try {
      const link = lstatSync(file);
      let target = link;
      if (link.isSymbolicLink()) {
        try {
          target = statSync(file);
        } catch {
          /* dangling */
        }
      }
      return signed(link, target);
    } catch {
      return undefined;
    }
  }

  /**
   * The first load, before the daemon serves: blocking reads (see loadConfigFileSync), one file after another.
   * Later scans run beside requests and stay asynchronous.
   */
  async function firstScan(): Promise<void> {
    for (const file of await listConfigFiles(options.dir)) {
      const seen = signatureOfSync(file);
      if (seen) applyResult(file, seen.signature, undefined, loadConfigFileSync(file, options.dir, seen.link));
    }
    rebuildIndex();
  }

  async function scan(force: boolean): Promise<void> {
    const present = new Set(await listConfigFiles(options.dir));
    for (const file of [...files.keys()]) {
      if (present.has(file)) continue;
      const gone = files.get(file);
      files.delete(file);
      emit({ kind: 'removed', file, apiId: gone?.config?.apiId });
    }
    // Files are read SCAN_CONCURRENCY at a time, each reader taking the next file as soon as it is done (not in
    // batches that wait for their slowest).
    const candidates = [...present];
    let nextIndex = 0;
    const reader = async (): Promise<void> => {
      while (nextIndex < candidates.length) await refreshFile(candidates[nextIndex++]!, force);
    };
    await Promise.all(Array.from({ length: Math.min(SCAN_CONCURRENCY, candidates.length) }, reader));
    rebuildIndex();
  }

  async function refreshFile(file: string, force: boolean): Promise<void> {
    const seen = await signatureOf(file);
    if (seen === undefined) return;
    const { signature, link } = seen;
    const previous = files.get(file);
    if (!force && previous && previous.signature === signature) return;
    applyResult(file, signature, previous, await loadConfigFile(file, options.dir, link));
  }

  function applyResult(file: string, signature: string, previous: FileState | undefined, result: ConfigLoadResult): void {
    if (result.ok) {
      files.set(file, { signature, config: result.config, problems: [] });
      emit({ kind: 'loaded', file, apiId: result.config.apiId, revision: result.config.revision });
    } else {
      const kept = previous?.config;
      files.set(file, { signature, config: kept, problems: result.problems });
      emit({ kind: 'invalid', file, apiId: kept?.apiId, problems: result.problems, keptPrevious: kept !== undefined });
    }
  }

  /** apiId → config; on a duplicate apiId the file that sorts first wins and the other is reported. */
  function rebuildIndex(): void {
    const next = new Map<string, ApiConfig>();
    const nextFiles = new Map<string, string>();
    for (const file of [...files.keys()].sort()) {
      const state = files.get(file)!;
      if (!state.config) continue;
      if (next.has(state.config.apiId)) {
        const problem = {
          file,
          path: '$.apiId',
          message: `duplicate apiId "${state.config.apiId}"`,
          hint: 'give each config its own apiId',
        };
        if (!state.problems.some((p) => p.message === problem.message)) state.problems.push(problem);
        continue;
      }
      next.set(state.config.apiId, state.config);
      nextFiles.set(state.config.apiId, file);
    }
    byApiId = next;
    fileByApiId = nextFiles;
  }

  /** Scans run one after another so that two bursts of events never interleave their reads. */
  function enqueue(force: boolean): Promise<void> {
    running = running
      .then(() => (closed ? undefined : scan(force)))
      .catch((error: unknown) => {
        emit({
          kind: 'invalid',
          file: options.dir,
          problems: [{ file: options.dir, path: '$', message: `cannot read the configs folder: ${(error as Error).message}` }],
        });
      });
    return running;
  }

  running = firstScan().catch((error: unknown) => {
    emit({
      kind: 'invalid',
      file: options.dir,
      problems: [{ file: options.dir, path: '$', message: `cannot read the configs folder: ${(error as Error).message}` }],
    });
  });
  await running;

  if (options.watch) {
    // A daemon started before the first `generate` must still see the configs that appear: create the folder
    // (as `init` would) so that it can be watched.
    await mkdir(options.dir, { recursive: true }).catch(() => undefined);
    try {
      watcher = watch(options.dir, { persistent: false }, (_event, name) => {
        // Temp files of atomic writes (`.name.tmp`) are noise; the rename that follows fires for the real name.
        if (name && basename(String(name)).startsWith('.')) return;
        if (timer) clearTimeout(timer);
        timer = setTimeout(() => {
          timer = undefined;
          void enqueue(false);
        }, options.debounceMs ?? 75);
      });
      watcher.on('error', () => undefined);
    } catch {
      // A folder that could not be created cannot be watched: SIGHUP (reload) still works once it exists.
      watcher = undefined;
    }
  }

  return {
    get: (apiId) => byApiId.get(apiId),
    fileOf: (apiId) => fileByApiId.get(apiId),
    list: () => [...byApiId.values()],
    problems: () => [...files.values()].flatMap((state) => state.problems),
    reload: () => enqueue(true),
    settled: async () => {
      while (timer) await new Promise((resolve) => setTimeout(resolve, (options.debounceMs ?? 75) + 5));
      await running;
    },
    close: () => {
      closed = true;
      if (timer) clearTimeout(timer);
      watcher?.close();
    },
  };
}
