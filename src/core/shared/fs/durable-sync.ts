import { open } from 'node:fs/promises';

/**
 * The power-cut half of the state's durability, kept off the answer path: the state's writes return once the
 * kernel holds them (kill -9 safe), and the fsyncs follow here.
 */

/**
 * Runs `pass` (an fsync of whatever was written) one at a time and at most once per `intervalMs`: writes
 * landing meanwhile share the next pass. Back-to-back passes would contend with the answer path's own writes
 * for the filesystem journal. A failed pass is retried by the next write's.
 */
export function coalescedSync(pass: () => Promise<void>, intervalMs = 50): { schedule(): void; durable(): Promise<void> } {
  let syncing: Promise<void> | undefined;
  let again = false;
  const schedule = (): void => {
    if (syncing) {
      again = true;
      return;
    }
    syncing = pass()
      .catch(() => undefined)
      .then(() => (again ? new Promise<void>((resolve) => setTimeout(resolve, intervalMs)) : undefined))
      .finally(() => {
        syncing = undefined;
        if (again) {
          again = false;
          schedule();
        }
      });
  };
  return {
    schedule,
    /** Resolves when every pass asked for so far has run (shutdown, tests). */
    async durable() {
      while (syncing) await syncing;
    },
  };
}

/** fsync of a folder, so that a file created or renamed in it survives a power cut as a directory entry. */
export async function syncDirectory(dir: string): Promise<void> {
  // Some filesystems refuse fsync on a directory (EISDIR/EINVAL); the rename is still atomic there.
  const handle = await open(dir, 'r').catch(() => undefined);
  if (!handle) return;
  try {
    await handle.sync();
  } catch {
    /* not supported here */
  } finally {
    await handle.close();
  }
}
