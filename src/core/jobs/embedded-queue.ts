import { randomBytes } from 'node:crypto';
import { closeSync, ftruncateSync, openSync, readSync, fstatSync, writeSync, constants } from 'node:fs';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ensurePrivateDir, readNoFollow, writeFileAtomic, openAppendNoFollowSync } from '../shared/index.js';
import { emptyCounts, type JobCounts, type JobItem, type JobRecord, type ResultLine } from './types.js';

/**
 * The embedded job queue: durable in the data dir, nothing to start (docs/jobs.md). A job is a folder
 * `jobs/<id>/` of three files: `job.json` (the record, replaced atomically), `items.ndjson` (its inputs, written
 * once before the record says the job exists) and `results.ndjson` (one line per finished input, appended).
 * A line is written before the job's counts move, so after a kill -9 the lines are the truth: the counts are
 * read back from them, and the items without a line are run again.
 */
export const JOB_ID_PATTERN = /^j_[0-9A-Za-z]{16}$/;
const ID_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export function newJobId(): string {
  return `j_${Array.from(randomBytes(16), (byte) => ID_ALPHABET[byte % 62]).join('')}`;
}

export interface ResultsWriter {
  append(line: ResultLine): void;
  close(): void;
}

export interface JobQueueFiles {
  create(record: JobRecord, items: readonly JobItem[]): Promise<void>;
  get(id: string): Promise<JobRecord | undefined>;
  list(): Promise<JobRecord[]>;
  save(record: JobRecord): Promise<void>;
  items(id: string): Promise<JobItem[]>;
  /** The lines so far: which items have one, and the counts they add up to. A torn last line is cut off. */
  recover(id: string, total: number): { finished: Set<number>; counts: JobCounts };
  openResults(id: string): ResultsWriter;
  resultsPath(id: string): string;
}

function countLine(counts: JobCounts, line: ResultLine): void {
  if (line.outcome === 'data') counts.done += 1;
  else if (line.outcome === 'error') counts.failed += 1;
  else counts.skipped += 1;
  counts.credits += Math.round((line.credits ?? 0) * 1000);
}

/** Reads a results file whole, cutting a last line a kill left without its newline. */
function recoverLines(path: string, total: number): { finished: Set<number>; counts: JobCounts } {
  const finished = new Set<number>();
  const counts = emptyCounts(total);
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDWR | constants.O_NOFOLLOW);
  } catch {
    return { finished, counts };
  }
  try {
    const size = fstatSync(fd).size;
    const bytes = Buffer.alloc(size);
    readSync(fd, bytes, 0, size, 0);
    const end = bytes.lastIndexOf(0x0a) + 1;
    if (end < size) ftruncateSync(fd, end);
    for (const text of bytes.subarray(0, end).toString('utf8').split('\n')) {
      if (text === '') continue;
      const line = JSON.parse(text) as ResultLine;
      if (finished.has(line.index)) continue;
      finished.add(line.index);
      countLine(counts, line);
    }
  } finally {
    closeSync(fd);
  }
  return { finished, counts };
}

export function createJobQueueFiles(root: string): JobQueueFiles {
  const dirOf = (id: string) => {
    if (!JOB_ID_PATTERN.test(id)) throw new Error(`not a job id: ${id.slice(0, 40)}`);
    return join(root, id);
  };
  const get = async (id: string): Promise<JobRecord | undefined> => {
    if (!JOB_ID_PATTERN.test(id)) return undefined;
    try {
      return JSON.parse((await readNoFollow(join(dirOf(id), 'job.json'))).toString('utf8')) as JobRecord;
    } catch {
      return undefined;
    }
  };
  return {
    async create(record, items) {
      await ensurePrivateDir(root);
      const dir = dirOf(record.id);
      await mkdir(dir, { mode: 0o700 });
      await writeFileAtomic(join(dir, 'items.ndjson'), items.map((item) => `${JSON.stringify(item)}\n`).join(''));
      await writeFileAtomic(join(dir, 'job.json'), JSON.stringify(record));
    },
    get,
    async list() {
      const names = await readdir(root).catch(() => [] as string[]);
      const records = await Promise.all(names.filter((name) => JOB_ID_PATTERN.test(name)).map(get));
      return records.filter((record): record is JobRecord => record !== undefined).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    },
    save: (record) => writeFileAtomic(join(dirOf(record.id), 'job.json'), JSON.stringify(record)),
    async items(id) {
      const text = await readFile(join(dirOf(id), 'items.ndjson'), 'utf8');
      return text
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line) as JobItem);
    },
    recover: (id, total) => recoverLines(join(dirOf(id), 'results.ndjson'), total),
    openResults(id) {
      const fd = openAppendNoFollowSync(join(dirOf(id), 'results.ndjson'));
      let open = true;
      return {
        // One write per line, synchronous: a line is whole in the file before the counts move (a kill -9 keeps what the kernel has).
        append: (line) => void writeSync(fd, `${JSON.stringify(line)}\n`),
        close: () => {
          if (open) closeSync(fd);
          open = false;
        },
      };
    },
    resultsPath: (id) => join(dirOf(id), 'results.ndjson'),
  };
}
