import { closeSync, constants, openSync, readFileSync } from 'node:fs';
import { mkdir, open, stat } from 'node:fs/promises';
import { PagejsonError } from '../errors.js';

/**
 * The data dir holds balances, key digests and cached pages, and pagejson writes there as its user (often a
 * service account, sometimes root). Whoever else can write in it could put a link where a state file goes and
 * have pagejson write or chmod wherever the link points. So a data dir owned by another user, or writable by
 * group or others, is refused before anything is opened in it, and state files are opened without following
 * links (O_NOFOLLOW). docs/security.md, "Files of the data dir".
 */

/** Refuses a data dir that is not a folder, not owned by this process's user, or writable by anyone else. */
export async function checkDataDir(dir: string): Promise<void> {
  const info = await stat(dir);
  if (!info.isDirectory()) {
    throw new PagejsonError('DATA_DIR_UNSAFE', `the data dir ${dir} is not a folder`, {
      context: { dataDir: dir },
      hint: 'move it aside, or point PAGEJSON_DATA_DIR (or dataDir in pagejson.json) at a folder',
    });
  }
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid) {
    throw new PagejsonError(
      'DATA_DIR_UNSAFE',
      `the data dir ${dir} belongs to another user (uid ${info.uid}), not to the user running pagejson (uid ${uid})`,
      {
        context: { dataDir: dir, owner: info.uid, uid },
        hint: `run pagejson as that user, or give the folder to this one (chown -R ${uid} ${dir}), or point PAGEJSON_DATA_DIR at a folder of your own`,
      },
    );
  }
  if ((info.mode & 0o022) !== 0) {
    throw new PagejsonError(
      'DATA_DIR_UNSAFE',
      `the data dir ${dir} is writable by other users (mode ${(info.mode & 0o7777).toString(8)}): they could swap its files for links`,
      {
        context: { dataDir: dir, mode: info.mode & 0o7777 },
        hint: `make it private with chmod 700 ${dir} (pagejson keeps it so), after checking that nobody left links in it`,
      },
    );
  }
}

/** Creates the data dir (0700) if needed and checks it (checkDataDir). */
export async function prepareDataDir(dir: string): Promise<void> {
  // A file in the way is reported by the check, in words.
  await mkdir(dir, { recursive: true, mode: 0o700 }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  await checkDataDir(dir);
}

/** A state file that turned out to be a symbolic link: never followed. */
export function linkRefused(path: string, cause?: unknown): PagejsonError {
  return new PagejsonError('DATA_DIR_UNSAFE', `${path} is a symbolic link: pagejson never follows links in its data dir`, {
    context: { file: path },
    hint: 'remove the link (and put the real file there if it was yours), then run the command again',
    cause,
  });
}

const refusingLinks = <T>(path: string, action: () => T): T => {
  try {
    return action();
  } catch (error) {
    throw (error as NodeJS.ErrnoException).code === 'ELOOP' ? linkRefused(path, error) : error;
  }
};

/** Opens a state file for appending, created 0600 if missing, never through a link. */
export function openAppendNoFollowSync(path: string, mode = 0o600): number {
  return refusingLinks(path, () =>
    openSync(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, mode),
  );
}

const READ_NO_FOLLOW = constants.O_RDONLY | constants.O_NOFOLLOW;

/** Reads a state file whole, never through a link (ENOENT and other errors as the open throws them). */
export function readNoFollowSync(path: string): Buffer {
  const fd = refusingLinks(path, () => openSync(path, READ_NO_FOLLOW));
  try {
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
}

export async function readNoFollow(path: string): Promise<Buffer> {
  const handle = await open(path, READ_NO_FOLLOW).catch((error: NodeJS.ErrnoException) => {
    throw error.code === 'ELOOP' ? linkRefused(path, error) : error;
  });
  try {
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** Opens a state file for writing (created 0600 if missing), never through a link: e.g. to fix its mode. */
export async function openWriteNoFollow(path: string, mode = 0o600): ReturnType<typeof open> {
  try {
    return await open(path, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, mode);
  } catch (error) {
    throw (error as NodeJS.ErrnoException).code === 'ELOOP' ? linkRefused(path, error) : error;
  }
}
