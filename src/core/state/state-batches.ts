import { existsSync, rmSync } from 'node:fs';
import { JOURNAL_SECTIONS, type JournalSection, type StateJournal } from './state-journal.js';

/**
 * The embedded store's writes (lowdb-store.ts): the entries changed since the last batch are appended to the
 * journal once per turn of the event loop (group commit), and the journal is folded into a new snapshot
 * when it outgrows it (docs/decisions.md, "A journal in front of the state snapshot").
 */
export interface BatchTarget {
  readonly journal: StateJournal;
  /** Where the journal being folded is kept until the snapshot holding it is on disk. */
  readonly foldingFile: string;
  /** An entry's value now; null when it was removed. */
  valueOf(section: JournalSection, key: string): object | null;
  /** Writes the whole state as the snapshot and resolves once it is durable. */
  writeSnapshot(): Promise<void>;
  /** Journal size that starts a fold. */
  compactAfterBytes(): number;
  /** Called after each append to the journal with its size (tests count appends to prove group commit). */
  onWrite?: (bytes: number) => void;
}

export interface StateBatches {
  /** Marks an entry changed: it goes with the next batch. */
  touch(section: JournalSection, key: string): void;
  /** Joins the change just made to the next batch and resolves when the batch is in the journal. */
  commit(section: JournalSection, key: string, otherSection?: JournalSection, otherKey?: string): Promise<void>;
  /** The next batch's promise (starting one if none is pending). */
  nextBatch(): Promise<void>;
  /** Appends every entry changed since the last batch now, then acknowledges the batch's changes. */
  writeBatch(mayFold?: boolean): void;
  /** Folds the journal into a new snapshot (joins a fold already running). */
  compact(): Promise<void>;
  /** The fold running now, if any. */
  readonly compacting: Promise<void> | undefined;
  /** Whether anything was appended: a store opened only to read leaves the files as they were. */
  readonly appended: boolean;
}

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A batch nobody awaits (fire-and-forget usage counters) must not become an unhandled rejection.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

export function createStateBatches(target: BatchTarget): StateBatches {
  const { journal, foldingFile } = target;
  // Entries changed since the last batch, in the order first changed (section, key, section, key, …), and per
  // section the keys already listed: a key changed again in the same batch (every hit debits the same account)
  // costs one Set lookup and allocates nothing.
  const dirty: Array<JournalSection | string> = [];
  const dirtyKeys = new Map<JournalSection, Set<string>>(JOURNAL_SECTIONS.map((section) => [section, new Set<string>()]));
  const touch = (section: JournalSection, key: string): void => {
    const listed = dirtyKeys.get(section)!;
    if (listed.has(key)) return;
    listed.add(key);
    dirty.push(section, key);
  };
  let next: Deferred | undefined;
  let compacting: Promise<void> | undefined;
  let appended = false;

  function writeBatch(mayFold = true): void {
    const batch = next;
    next = undefined;
    try {
      if (dirty.length > 0) {
        let text = '';
        for (let index = 0; index < dirty.length; index += 2) {
          const section = dirty[index] as JournalSection;
          const key = dirty[index + 1]!;
          text += `${JSON.stringify([section, key, target.valueOf(section, key)])}\n`;
        }
        // Not `onWrite?.(journal.append(…))`: optional call syntax would skip the append with no callback.
        const bytes = journal.append(text);
        // Only once appended: entries of a failed append stay dirty and go with the next batch.
        dirty.length = 0;
        for (const listed of dirtyKeys.values()) if (listed.size > 0) listed.clear();
        appended = true;
        target.onWrite?.(bytes);
      }
      batch?.resolve();
    } catch (error) {
      batch?.reject(error);
      return;
    }
    if (mayFold && !compacting && journal.bytes >= target.compactAfterBytes()) void compact().catch(() => undefined);
  }

  function commit(section: JournalSection, key: string, otherSection?: JournalSection, otherKey?: string): Promise<void> {
    touch(section, key);
    if (otherSection !== undefined && otherKey !== undefined) touch(otherSection, otherKey);
    return nextBatch();
  }

  function nextBatch(): Promise<void> {
    if (!next) {
      next = deferred();
      // setImmediate: changes made in the same turn of the event loop share one append.
      setImmediate(() => writeBatch());
    }
    return next.promise;
  }

  /**
   * Pending changes are appended first; then the switch to a fresh journal and the snapshot's serialisation
   * happen in one synchronous step, so every record is in the snapshot or in the fresh journal. The folded
   * journal is removed only once the snapshot is fsynced (until then a restart replays it over the snapshot,
   * which changes nothing: records carry values).
   */
  function compact(): Promise<void> {
    compacting ??= (async () => {
      writeBatch(false);
      // A folded journal still aside (a fold that failed, or one a crash cut short) is not in any snapshot yet:
      // this fold must not overwrite it. It folds without switching journals; the next fold switches.
      if (!existsSync(foldingFile)) journal.rotate(foldingFile);
      await target.writeSnapshot();
      rmSync(foldingFile, { force: true });
    })().finally(() => (compacting = undefined));
    return compacting;
  }

  return {
    touch,
    commit,
    nextBatch,
    writeBatch,
    compact,
    get compacting() {
      return compacting;
    },
    get appended() {
      return appended;
    },
  };
}
