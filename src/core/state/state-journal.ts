import { closeSync, existsSync, fdatasync, fsyncSync, ftruncateSync, mkdirSync, renameSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { coalescedSync, openAppendNoFollowSync, PagejsonError, readNoFollowSync, syncDirectory } from '../shared/index.js';

/**
 * The append-only journal in front of the state snapshot (`state.json`).
 *
 * Each line is one record `[section, key, value]`: the whole current value of one entry of the state (an
 * account, a key, a usage row, a hold, an endpoint status), or `null` when the entry was removed. Records
 * carry values, not operations, so replaying a record twice changes nothing: a crash between writing a
 * snapshot and removing the journal it folded in is harmless.
 *
 * An append is one write(2) of every record of a batch, made before the batch's changes are acknowledged:
 * once it returns the kernel holds the bytes, so they survive `kill -9`. fdatasync runs in the background, at
 * most one pass per 50 ms; a power cut can lose what was appended since the last pass, and can
 * tear the last line, which replay then ignores.
 */
export const JOURNAL_SECTIONS = ['accounts', 'keys', 'usage', 'usageHours', 'endpoints', 'holds'] as const;
export type JournalSection = (typeof JOURNAL_SECTIONS)[number];
export type JournalRecord = [section: JournalSection, key: string, value: object | null];

/** Journal files larger than this are not ours to read whole (a journal is compacted long before). */
const MAX_REPLAY_BYTES = 512 * 1024 * 1024;

export const journalFileOf = (stateFile: string): string => `${stateFile}.journal`;
/** The journal being folded into a snapshot: kept until the snapshot that holds it is on disk. */
export const foldingFileOf = (stateFile: string): string => `${stateFile}.journal.folding`;

export class StateJournal {
  private fd: number | undefined;
  /** fdatasync of the appends, coalesced: at most one pass per 50 ms (a journal switched aside was fsynced). */
  private readonly sync = coalescedSync(() => {
    const fd = this.fd;
    return new Promise<void>((resolve) => (fd === undefined ? resolve() : fdatasync(fd, () => resolve())));
  });
  /** Bytes in the current journal file. */
  bytes: number;
  /** A torn last write found when the store opened: cut off before this store's first append, not before
   * (a store opened only to read changes no file). */
  private tornBytes: number;

  constructor(
    readonly file: string,
    found: { validBytes: number; tornBytes: number } = { validBytes: 0, tornBytes: 0 },
  ) {
    this.bytes = found.validBytes;
    this.tornBytes = found.tornBytes;
  }

  /** One write(2) of the batch's records. Throws if the disk refuses: the batch is then not acknowledged. */
  append(text: string): number {
    this.fd ??= this.openFile();
    const buffer = Buffer.from(text, 'utf8');
    let written = 0;
    while (written < buffer.length) written += writeSync(this.fd, buffer, written, buffer.length - written);
    this.bytes += buffer.length;
    this.sync.schedule();
    return buffer.length;
  }

  /**
   * Moves the current journal aside (to be folded into the snapshot being written) and starts an empty one.
   * Synchronous, so no append can fall between the snapshot's serialisation and the switch.
   */
  rotate(foldingFile: string): void {
    if (this.fd === undefined && !existsSync(this.file)) return;
    if (this.fd !== undefined) {
      // The records moved aside must be on disk before the snapshot replaces them.
      fsyncSync(this.fd);
      closeSync(this.fd);
      this.fd = undefined;
    }
    renameSync(this.file, foldingFile);
    this.bytes = 0;
  }

  /** Resolves when every append so far is fsynced. */
  durable(): Promise<void> {
    return this.sync.durable();
  }

  async close(): Promise<void> {
    await this.durable();
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private openFile(): number {
    mkdirSync(dirname(this.file), { recursive: true, mode: 0o700 });
    // Never through a link: one left in the data dir would take the key and balance lines elsewhere.
    const fd = openAppendNoFollowSync(this.file);
    if (this.tornBytes > 0) ftruncateSync(fd, this.bytes);
    this.tornBytes = 0;
    // A new journal file must survive a power cut as a directory entry too.
    void syncDirectory(dirname(this.file));
    return fd;
  }
}

/**
 * Reads a journal file's records in order. A last line without its newline, or one that does not parse, is a
 * write torn by a power cut and is ignored; a bad line anywhere else means the file is not what we wrote.
 */
export function readJournal(file: string): { records: JournalRecord[]; validBytes: number; tornBytes: number } {
  if (!existsSync(file)) return { records: [], validBytes: 0, tornBytes: 0 };
  const bytes = readNoFollowSync(file);
  if (bytes.length > MAX_REPLAY_BYTES) throw corruptJournal(file, `is larger than ${MAX_REPLAY_BYTES} bytes`);
  const records: JournalRecord[] = [];
  let start = 0;
  let line = 1;
  while (start < bytes.length) {
    const end = bytes.indexOf(0x0a, start);
    // No newline: the last write was torn.
    if (end === -1) break;
    const record = parseRecord(bytes.toString('utf8', start, end));
    if (!record) {
      if (end + 1 === bytes.length) break;
      throw corruptJournal(file, `has an unreadable record on line ${line}`);
    }
    records.push(record);
    start = end + 1;
    line++;
  }
  return { records, validBytes: start, tornBytes: bytes.length - start };
}

function parseRecord(line: string): JournalRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (!Array.isArray(value) || value.length !== 3) return undefined;
  const [section, key, entry] = value as unknown[];
  if (!(JOURNAL_SECTIONS as readonly unknown[]).includes(section) || typeof key !== 'string') return undefined;
  if (entry !== null && (typeof entry !== 'object' || Array.isArray(entry))) return undefined;
  return [section as JournalSection, key, entry as object | null];
}

function corruptJournal(file: string, reason: string): PagejsonError {
  return new PagejsonError('STATE_CORRUPT', `state journal ${file} ${reason}`, {
    context: { file },
    hint: 'restore the state directory from a backup, or move the journal aside to start from the last snapshot (changes in it are then lost); pagejson never resets it by itself',
  });
}
