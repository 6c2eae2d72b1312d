import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, realpathSync, statSync, type Stats } from 'node:fs';
import { lstat, open, realpath, stat, type FileHandle } from 'node:fs/promises';
import { isAbsolute, relative } from 'node:path';

/**
 * Reading a file that arrived from outside (a checkout, a pull request, a bad merge): configs, pagejson.json,
 * snapshots. Only regular files (a FIFO would block the open forever, a device never ends), no symbolic link
 * that leads out of `root` (its contents would end up in messages and CI logs), at most `maxBytes`, within
 * `timeoutMs`. The open is non-blocking and without following links, and the opened descriptor is checked
 * again, so a file swapped for a pipe or a link between the check and the open is still refused.
 * docs/security.md lists who reads what this way.
 */
export type Refusal =
  | { kind: 'link-outside' }
  | { kind: 'link' }
  | { kind: 'not-regular'; what: string }
  | { kind: 'too-large'; maxBytes: number }
  | { kind: 'unreadable'; code: string };

export type CheckedRead = { bytes: Buffer } | { refused: Refusal };

export interface CheckedReadOptions {
  /** The folder the file must stay inside. */
  root: string;
  maxBytes: number;
  /** Asynchronous reads only: a filesystem that hangs must not hang reloads, shutdown or a CLI command. */
  timeoutMs?: number;
  /** `inside` (default): a link is followed when it leads to a file inside `root`; `refuse`: no link at all. */
  links?: 'inside' | 'refuse';
  /** The file's lstat, when the caller has just taken it. */
  known?: Stats;
}

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;

/** What a file that is not a regular one is, in words. */
export function kindOf(info: Stats): string {
  if (info.isFIFO()) return 'a named pipe (FIFO)';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  if (info.isDirectory()) return 'a folder';
  if (info.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

/** Whether `path` is strictly inside `folder` (both as given: resolve links first when they matter). */
export function isInside(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

const refuse = (refusal: Refusal): { refused: Refusal } => ({ refused: refusal });
const unreadable = (error: unknown): { refused: Refusal } =>
  refuse({ kind: 'unreadable', code: (error as NodeJS.ErrnoException).code ?? (error as Error).message });
/** The checks on a file's stat before it is opened, and on the opened descriptor's after. */
const refusalOf = (info: Stats, maxBytes: number): { refused: Refusal } | undefined =>
  !info.isFile()
    ? refuse({ kind: 'not-regular', what: kindOf(info) })
    : info.size > maxBytes
      ? refuse({ kind: 'too-large', maxBytes })
      : undefined;

/** The file to open (a link's target inside root), or why not. */
async function targetOf(file: string, options: CheckedReadOptions): Promise<{ target: string } | { refused: Refusal }> {
  let info = options.known ?? (await lstat(file));
  let target = file;
  if (info.isSymbolicLink()) {
    if (options.links === 'refuse') return refuse({ kind: 'link' });
    target = await realpath(file);
    if (!isInside(await realpath(options.root).catch(() => options.root), target)) return refuse({ kind: 'link-outside' });
    info = await stat(target);
  }
  return refusalOf(info, options.maxBytes) ?? { target };
}

export async function readChecked(file: string, options: CheckedReadOptions): Promise<CheckedRead> {
  let target: string;
  try {
    const found = await targetOf(file, options);
    if ('refused' in found) return found;
    target = found.target;
  } catch (error) {
    return unreadable(error);
  }
  let handle: FileHandle | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    handle = await open(target, OPEN_FLAGS);
    const opened = await handle.stat();
    const refused = refusalOf(opened, options.maxBytes);
    if (refused) return refused;
    const buffer = Buffer.alloc(Math.min(opened.size, options.maxBytes) + 1);
    const read = handle.read(buffer, 0, buffer.length, 0);
    const timeout = new Promise<never>((_resolve, reject) => {
      if (options.timeoutMs !== undefined)
        timer = setTimeout(() => reject(Object.assign(new Error('read timed out'), { code: 'ETIMEDOUT' })), options.timeoutMs);
    });
    const { bytesRead } = await Promise.race([read, timeout]);
    // The file grew between the stat and the read.
    if (bytesRead > options.maxBytes) return refuse({ kind: 'too-large', maxBytes: options.maxBytes });
    return { bytes: buffer.subarray(0, bytesRead) };
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ELOOP' ? refuse({ kind: 'link' }) : unreadable(error);
  } finally {
    clearTimeout(timer);
    await handle?.close().catch(() => undefined);
  }
}

function targetOfSync(file: string, options: CheckedReadOptions): { target: string } | { refused: Refusal } {
  let info = options.known ?? lstatSync(file);
  let target = file;
  if (info.isSymbolicLink()) {
    if (options.links === 'refuse') return refuse({ kind: 'link' });
    target = realpathSync(file);
    let realRoot = options.root;
    try {
      realRoot = realpathSync(options.root);
    } catch {
      /* the folder as given */
    }
    if (!isInside(realRoot, target)) return refuse({ kind: 'link-outside' });
    info = statSync(target);
  }
  return refusalOf(info, options.maxBytes) ?? { target };
}

/**
 * readChecked with blocking calls, for a read nothing else waits on (the daemon's first config load, see
 * docs/decisions.md "The first config load reads with blocking calls"). The same checks in the same order;
 * what it cannot have is the timeout (a FIFO never blocks it: it is opened non-blocking and refused unread).
 */
export function readCheckedSync(file: string, options: CheckedReadOptions): CheckedRead {
  let fd: number | undefined;
  try {
    const found = targetOfSync(file, options);
    if ('refused' in found) return found;
    fd = openSync(found.target, OPEN_FLAGS);
    const opened = fstatSync(fd);
    const refused = refusalOf(opened, options.maxBytes);
    if (refused) return refused;
    const buffer = Buffer.alloc(Math.min(opened.size, options.maxBytes) + 1);
    const bytesRead = readSync(fd, buffer, 0, buffer.length, 0);
    if (bytesRead > options.maxBytes) return refuse({ kind: 'too-large', maxBytes: options.maxBytes });
    return { bytes: buffer.subarray(0, bytesRead) };
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ELOOP' ? refuse({ kind: 'link' }) : unreadable(error);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** A refusal in words, for messages that name the file themselves (`skipped: <this>`). */
export function describeRefusal(refusal: Refusal, folder = 'the folder'): string {
  switch (refusal.kind) {
    case 'link-outside':
      return `a symbolic link that leads outside ${folder}`;
    case 'link':
      return 'a symbolic link';
    case 'not-regular':
      return refusal.what;
    case 'too-large':
      return `larger than ${refusal.maxBytes} bytes`;
    case 'unreadable':
      return `cannot be read: ${refusal.code}`;
  }
}
