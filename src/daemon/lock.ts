import { open, readFile, unlink } from 'node:fs/promises';
import { PagejsonError } from '../core/shared/errors.js';
import { isProcessAlive } from '../core/shared/process-alive.js';

/**
 * `<dataDir>/daemon.lock`: one daemon per data dir, because the embedded state store has one writer
 * (docs/state.md). The file holds the owner's pid; a lock whose pid is dead (the daemon was killed, also when
 * it is a zombie nobody reaped yet) is taken over, a live one makes the second daemon fail fast with a message saying who holds it.
 */
export interface DaemonLock {
  path: string;
  release(): Promise<void>;
}

async function readOwner(path: string): Promise<number | undefined> {
  try {
    const pid = Number.parseInt((await readFile(path, 'utf8')).trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

export async function acquireDaemonLock(path: string, dataDir: string): Promise<DaemonLock> {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const handle = await open(path, 'wx', 0o600);
      await handle.writeFile(`${process.pid}\n`);
      await handle.sync();
      await handle.close();
      let released = false;
      return {
        path,
        release: async () => {
          if (released) return;
          released = true;
          if ((await readOwner(path)) === process.pid) await unlink(path).catch(() => undefined);
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = await readOwner(path);
    if (owner !== undefined && isProcessAlive(owner)) {
      throw new PagejsonError('DAEMON_RUNNING', `another pagejson daemon (pid ${owner}) is already serving the data dir ${dataDir}`, {
        context: { pid: owner, lock: path },
        hint: 'stop that daemon first, or give this one its own data dir with PAGEJSON_DATA_DIR',
      });
    }
    // Stale: its owner is gone (kill -9, power loss) or the file is unreadable. Take it over.
    await unlink(path).catch(() => undefined);
  }
  throw new PagejsonError('DAEMON_RUNNING', `could not take the lock ${path}`, {
    hint: 'another daemon is starting on the same data dir; try again',
  });
}
