import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { Adapter } from 'lowdb';
import { coalescedSync, isPagejsonError, PagejsonError, readNoFollow, syncDirectory } from '../shared/index.js';

/**
 * lowdb's own JSONFile adapter never fsyncs and writes in place, so a crash can leave an empty or torn state
 * file. This one writes a unique temp file (mode 0600: the state holds key digests and balances) and renames
 * it over the target, so a reader sees the old file or the new one, never half of each.
 *
 * A write resolves once the rename is done: from then on the change survives `kill -9` (the kernel holds it),
 * which is what an answered debit needs. The fsyncs that make it survive a power cut (the file, then the
 * directory) run right after in the background, coalesced, and `durable()` waits for them. Keeping them off
 * the answer path is what lets a cache hit that spends credits be answered in well under a millisecond
 * instead of waiting ~2–3 ms for two fsyncs (docs/decisions.md, "State writes and fsync").
 */
export interface DurableJsonAdapterOptions {
  /** Checks the parsed value; return a reason to reject a file that parses but is not ours. */
  check?: (value: unknown) => string | undefined;
  /** Called after each completed write with its size: tests count writes to prove group commit. */
  onWrite?: (bytes: number) => void;
}

export class DurableJsonAdapter<T> implements Adapter<T> {
  private dirReady = false;
  /** The power-cut fsyncs (file, then folder) after renamed writes, coalesced: at most one pass per 50 ms. */
  private readonly sync = coalescedSync(() => this.syncFileAndDirectory());

  constructor(
    readonly file: string,
    private readonly options: DurableJsonAdapterOptions = {},
  ) {}

  async read(): Promise<T | null> {
    let text: string;
    try {
      // Never through a link (docs/security.md, "Files of the data dir").
      text = (await readNoFollow(this.file)).toString('utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return null;
      if (isPagejsonError(error)) throw error;
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

  /**
   * Synchronous on purpose: the file is small and nothing is fsynced here, so open-write-close-rename costs a
   * fraction of a millisecond of the event loop per batch, where four thread-pool round trips would keep every
   * request of the batch waiting (measured: ~35% idle daemon under load). The fsyncs stay asynchronous.
   */
  private async writeText(text: string): Promise<void> {
    const dir = dirname(this.file);
    if (!this.dirReady) {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      this.dirReady = true;
    }
    const temp = join(dir, `.${basename(this.file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
    try {
      writeFileSync(temp, text, { mode: 0o600, flag: 'wx' });
      renameSync(temp, this.file);
    } catch (error) {
      rmSync(temp, { force: true });
      throw error;
    }
    this.options.onWrite?.(Buffer.byteLength(text));
    this.sync.schedule();
  }

  /** Resolves when every write so far is on disk (fsynced file and directory): shutdown and tests. */
  durable(): Promise<void> {
    return this.sync.durable();
  }

  private async syncFileAndDirectory(): Promise<void> {
    // fsync works on the inode: data written through the temp file's handle is flushed by this one too.
    const handle = await open(this.file, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    await syncDirectory(dirname(this.file));
  }
}

function corrupt(file: string, reason: string, cause?: unknown): PagejsonError {
  return new PagejsonError('STATE_CORRUPT', `state file ${file} ${reason}`, {
    context: { file },
    hint: 'restore it from a backup, or move it aside to start with empty state (keys and balances in it are then lost); pagejson never resets it by itself',
    cause,
  });
}
