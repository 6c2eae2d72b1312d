import { chmod, lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { linkRefused, openWriteNoFollow, prepareDataDir } from './data-dir.js';

/**
 * The data dir holds balances, key digests and cached pages: nobody but the daemon's user may read it. The
 * folder is 0700 and every file in it 0600, whatever the umask and whatever an older version left behind.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Creates the folder (0700) if needed, refuses it when another user owns it or can write in it (data-dir.ts),
 * and makes it and every file directly in it private. A link in it is refused, not followed: chmod would change
 * whatever it points at, and SQLite or the journal would write there.
 */
export async function ensurePrivateDir(dir: string): Promise<void> {
  await prepareDataDir(dir);
  await chmod(dir, PRIVATE_DIR_MODE);
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    const info = await lstat(path).catch(() => undefined);
    if (info?.isSymbolicLink()) throw linkRefused(path);
    if (info && (info.isFile() || info.isSocket()) && (info.mode & 0o777) !== PRIVATE_FILE_MODE)
      await chmod(path, PRIVATE_FILE_MODE).catch(() => undefined);
  }
}

/**
 * Creates an empty file 0600 if it does not exist yet, so that a library opening it later (SQLite) finds it
 * private; SQLite gives its `-wal` and `-shm` files the database file's permissions.
 */
export async function ensurePrivateFile(path: string): Promise<void> {
  const handle = await openWriteNoFollow(path, PRIVATE_FILE_MODE);
  // On the opened file, so a link swapped in meanwhile cannot redirect it.
  await handle.chmod(PRIVATE_FILE_MODE);
  await handle.close();
}
