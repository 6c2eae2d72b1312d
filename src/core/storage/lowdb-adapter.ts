import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Adapter } from 'lowdb';
import { PagejsonError } from '../errors.js';

/**
 * lowdb's own JSONFile adapter never fsyncs, so a crash can leave an empty or torn state file. This one
 * writes a unique temp file (mode 0600: the state holds key digests and balances), fsyncs it, renames it over
 * the target and fsyncs the directory so the rename itself survives a power cut. A reader therefore sees the
 * old file or the new one, never half of each, and `kill -9` never corrupts it.
 */
export interface DurableJsonAdapterOptions {
  /** Checks the parsed value; return a reason to reject a file that parses but is not ours. */
  check?: (value: unknown) => string | undefined;
  /** Called after each completed write with its size: tests count writes to prove group commit. */
  onWrite?: (bytes: number) => void;
}

export class DurableJsonAdapter<T> implements Adapter<T> {
  private dirReady = false;

  constructor(
    readonly file: string,
    private readonly options: DurableJsonAdapterOptions = {},
  ) {}

  async read(): Promise<T | null> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return null;
      throw corrupt(this.file, `cannot be read (${code ?? (error as Error).message})`, error);
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw corrupt(this.file, `is not valid JSON (${(error as Error).message})`, error);
    }
    const reason = this.options.check?.(value);
    if (reason) throw corrupt(this.file, reason);
    return value as T;
  }

  /** Serialises synchronously, on the call: changes made after the call go into the next write. */
  write(data: T): Promise<void> {
    const text = `${JSON.stringify(data)}\n`;
    return this.writeText(text);
  }

  private async writeText(text: string): Promise<void> {
    const dir = dirname(this.file);
    if (!this.dirReady) {
      await mkdir(dir, { recursive: true });
      this.dirReady = true;
    }
    const temp = join(dir, `.${basename(this.file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
    const handle = await open(temp, 'w', 0o600);
    try {
      await handle.writeFile(text);
      await handle.sync();
    } catch (error) {
      await handle.close().catch(() => undefined);
      await unlink(temp).catch(() => undefined);
      throw error;
    }
    await handle.close();
    try {
      await rename(temp, this.file);
    } catch (error) {
      await unlink(temp).catch(() => undefined);
      throw error;
    }
    await syncDirectory(dir);
    this.options.onWrite?.(Buffer.byteLength(text));
  }
}

async function syncDirectory(dir: string): Promise<void> {
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

function corrupt(file: string, reason: string, cause?: unknown): PagejsonError {
  return new PagejsonError('STATE_CORRUPT', `state file ${file} ${reason}`, {
    context: { file },
    hint: 'restore it from a backup, or move it aside to start with empty state (keys and balances in it are then lost); pagejson never resets it by itself',
    cause,
  });
}
