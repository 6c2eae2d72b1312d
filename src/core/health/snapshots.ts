import { createHash } from 'node:crypto';
import { lstat, mkdir, readdir, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzip, gzipSync } from 'node:zlib';
import { API_ID_PATTERN } from '../config/index.js';
import { describeRefusal, PagejsonError, readChecked, writeFileAtomic } from '../shared/index.js';

/**
 * Snapshots: the evidence of what a config extracts, kept in the repo beside it. For each snapshot,
 * `configs/__snapshots__/<apiId>/<name>.html.gz` holds the fetched page (gzip) and `<name>.json` the URL, the
 * variables, the config revision and the data extracted from it. `pagejson test` re-extracts the page with
 * the current config, offline, and compares. Writes are deterministic (same page and data, same bytes), so a
 * snapshot only shows in a diff when something really changed.
 */
export const SNAPSHOT_DIR = '__snapshots__';
const NAME_PATTERN = /^[a-z0-9][a-z0-9_.=-]{0,99}$/;

export interface SnapshotRecord {
  apiId: string;
  revision: number;
  url: string;
  variables: Record<string, string>;
  data: Record<string, unknown>;
  /**
   * A paginated config (docs/pagination.md): the pages after the first whose items the data holds, in order,
   * each kept as `<name>.page-<n>.html.gz` (n from 2). Absent for one page.
   */
  pages?: SnapshotPage[];
}

export interface SnapshotPage {
  url: string;
  finalUrl: string;
}

export interface StoredSnapshot {
  name: string;
  record: SnapshotRecord;
  html: string;
  /** The pages after the first, as the record lists them, with their text. */
  morePages: Array<SnapshotPage & { html: string }>;
}

/** The most pages a snapshot keeps (pagination.maxPages is at most 100), and the bound of their text together, in pages of the largest size. */
const MAX_SNAPSHOT_PAGES = 100;
const SNAPSHOT_PAGES_BOUND = 10;
const pageFileOf = (name: string, index: number) => `${name}.page-${index + 2}.html.gz`;

/** `default` for a static config; for a dynamic one, its variable values (`category=travel_page=1`). */
export function snapshotName(variables: Record<string, string>): string {
  const names = Object.keys(variables).sort();
  if (names.length === 0) return 'default';
  const text = names
    .map((name) => `${name}=${variables[name]}`)
    .join('_')
    .toLowerCase()
    .replace(/[^a-z0-9_.=-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '');
  // Long or empty after cleaning: a digest keeps names unique and short.
  return NAME_PATTERN.test(text) && text.length <= 80
    ? text
    : `v-${createHash('sha256')
        .update(JSON.stringify(names.map((name) => [name, variables[name]])))
        .digest('hex')
        .slice(0, 16)}`;
}

/**
 * Snapshots arrive with pull requests, and `pagejson test` prints what they hold into CI logs: they are read as
 * configs are (docs/security.md). No link anywhere (the folders included), regular files only, bounded sizes,
 * and a page decompressed at most to SNAPSHOT_MAX_PAGE_BYTES and SNAPSHOT_MAX_RATIO times its compressed size.
 */
/** The largest page a snapshot holds once decompressed: fetch.maxBytes's default, the largest page fetched. */
export const SNAPSHOT_MAX_PAGE_BYTES = 10 * 1024 * 1024;
/** HTML compresses 5–20:1 (50:1 for very repetitive pages); a gzip bomb about 1000:1. */
export const SNAPSHOT_MAX_RATIO = 100;
/** Below this a page is never refused for its ratio: it cannot hurt, whatever it compresses to. */
const RATIO_FLOOR_BYTES = 1024 * 1024;
/** A record holds the data extracted from one page. */
const MAX_RECORD_BYTES = 16 * 1024 * 1024;
const READ_TIMEOUT_MS = 2_000;

function unreadable(apiId: string, name: string, reason: string, cause?: unknown): PagejsonError {
  return new PagejsonError('CONFIG_INVALID', `snapshot ${apiId}/${name} cannot be read: ${reason}`, {
    context: { apiId, name },
    hint: `take it again with \`pagejson snapshot ${apiId}\`, or delete ${join(SNAPSHOT_DIR, apiId, name)}.*`,
    cause,
  });
}

/** `configs/__snapshots__/<apiId>`, refused when either folder is a link or not a folder (absent is fine). */
async function folderOf(configsDir: string, apiId: string): Promise<string> {
  // apiIds come from validated configs; checked again because they become a path.
  if (!API_ID_PATTERN.test(apiId))
    throw new PagejsonError('USAGE', `"${apiId}" is not an apiId`, { hint: 'apiIds are 1-64 characters of a-z, 0-9, _ and -' });
  for (const folder of [join(configsDir, SNAPSHOT_DIR), join(configsDir, SNAPSHOT_DIR, apiId)]) {
    const info = await lstat(folder).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    if (info && !info.isDirectory()) {
      throw new PagejsonError(
        'CONFIG_INVALID',
        `${folder} is ${info.isSymbolicLink() ? 'a symbolic link' : 'not a folder'}: snapshots are read from real folders inside the configs folder only`,
        {
          context: { apiId, folder },
          hint: `remove it and take the snapshots again with \`pagejson snapshot ${apiId}\``,
        },
      );
    }
  }
  return join(configsDir, SNAPSHOT_DIR, apiId);
}

async function readSnapshotFile(folder: string, file: string, maxBytes: number, apiId: string, name: string): Promise<Buffer> {
  const read = await readChecked(join(folder, file), { root: folder, maxBytes, timeoutMs: READ_TIMEOUT_MS, links: 'refuse' });
  if ('refused' in read) throw unreadable(apiId, name, `${file} is ${describeRefusal(read.refused)}`);
  return read.bytes;
}

/** Gunzips a snapshot's page, stopping at the size and ratio bounds instead of growing without end. */
async function pageOf(gzipped: Buffer, maxPageBytes: number, apiId: string, name: string): Promise<string> {
  const limit = Math.min(maxPageBytes, Math.max(gzipped.length * SNAPSHOT_MAX_RATIO, RATIO_FLOOR_BYTES));
  try {
    return (await promisify(gunzip)(gzipped, { maxOutputLength: limit })).toString('utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_BUFFER_TOO_LARGE')
      throw unreadable(apiId, name, `${name}.html.gz is not gzip (${(error as Error).message})`, error);
    throw unreadable(
      apiId,
      name,
      `${name}.html.gz decompresses to more than ${limit} bytes (a snapshot page is at most ${maxPageBytes} bytes and ${SNAPSHOT_MAX_RATIO} times its compressed size)`,
      error,
    );
  }
}

function recordOf(bytes: Buffer, apiId: string, name: string): SnapshotRecord {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    // Not the parser's message: it quotes the file's text.
    throw unreadable(apiId, name, `${name}.json is not valid JSON`);
  }
  const record = value as Partial<SnapshotRecord> | null;
  const isObject = (entry: unknown) => typeof entry === 'object' && entry !== null && !Array.isArray(entry);
  if (!isObject(record) || typeof record!.url !== 'string' || !isObject(record!.data))
    throw unreadable(apiId, name, `${name}.json is not a snapshot (no url or data)`);
  const pages = pagesOfRecord(record!.pages, apiId, name);
  return {
    apiId: record!.apiId ?? apiId,
    revision: record!.revision ?? 0,
    url: record!.url,
    variables: record!.variables ?? {},
    data: record!.data!,
    ...(pages ? { pages } : {}),
  };
}

/** A record's list of further pages: absent, or at most MAX_SNAPSHOT_PAGES addresses (it comes from a checkout). */
function pagesOfRecord(pages: unknown, apiId: string, name: string): SnapshotPage[] | undefined {
  if (pages === undefined) return undefined;
  const valid =
    Array.isArray(pages) &&
    pages.length < MAX_SNAPSHOT_PAGES &&
    pages.every(
      (page) =>
        typeof page === 'object' &&
        page !== null &&
        typeof (page as SnapshotPage).url === 'string' &&
        typeof (page as SnapshotPage).finalUrl === 'string',
    );
  if (!valid)
    throw unreadable(apiId, name, `${name}.json lists its pages wrongly (a list of at most ${MAX_SNAPSHOT_PAGES - 1} {url, finalUrl})`);
  return (pages as SnapshotPage[]).map((page) => ({ url: page.url, finalUrl: page.finalUrl }));
}

/** Stable JSON: 2 spaces, keys of the record in a fixed order, a trailing newline. */
function recordText(record: SnapshotRecord): string {
  const ordered = {
    apiId: record.apiId,
    revision: record.revision,
    url: record.url,
    variables: record.variables,
    ...(record.pages ? { pages: record.pages } : {}),
    data: record.data,
  };
  return `${JSON.stringify(ordered, null, 2)}\n`;
}

export async function writeSnapshot(
  configsDir: string,
  record: SnapshotRecord,
  html: string,
  morePages: ReadonlyArray<SnapshotPage & { readonly html: string }> = [],
): Promise<{ name: string; dataFile: string; pageFile: string; pageFiles: string[] }> {
  const folder = await folderOf(configsDir, record.apiId);
  await mkdir(folder, { recursive: true });
  const name = snapshotName(record.variables);
  const dataFile = join(folder, `${name}.json`);
  const pageFile = join(folder, `${name}.html.gz`);
  // gzip's header carries no time here (mtime 0), so the same page always compresses to the same bytes.
  await writeFileAtomic(pageFile, gzipSync(Buffer.from(html, 'utf8'), { level: 9 }));
  const pageFiles: string[] = [];
  for (const [index, page] of morePages.slice(0, MAX_SNAPSHOT_PAGES - 1).entries()) {
    pageFiles.push(join(folder, pageFileOf(name, index)));
    await writeFileAtomic(pageFiles[index]!, gzipSync(Buffer.from(page.html, 'utf8'), { level: 9 }));
  }
  await removeStalePages(folder, name, pageFiles.length);
  const pages = morePages.slice(0, MAX_SNAPSHOT_PAGES - 1).map((page) => ({ url: page.url, finalUrl: page.finalUrl }));
  await writeFileAtomic(dataFile, recordText({ ...record, ...(pages.length > 0 ? { pages } : {}) }));
  return { name, dataFile, pageFile, pageFiles };
}

/** Page files of an earlier snapshot of the same name that had more pages than this one. */
async function removeStalePages(folder: string, name: string, kept: number): Promise<void> {
  for (const file of await readdir(folder)) {
    const match = /^(.+)\.page-(\d+)\.html\.gz$/.exec(file);
    if (match && match[1] === name && Number(match[2]) > kept + 1) await unlink(join(folder, file));
  }
}

/** Rewrites only the expected data of a snapshot (`pagejson test --update`). */
export async function updateSnapshotData(
  configsDir: string,
  snapshot: StoredSnapshot,
  data: Record<string, unknown>,
  revision: number,
): Promise<void> {
  const folder = await folderOf(configsDir, snapshot.record.apiId);
  await writeFileAtomic(join(folder, `${snapshot.name}.json`), recordText({ ...snapshot.record, revision, data }));
}

/** Every snapshot of an endpoint, read with the checks above; one that cannot be read throws CONFIG_INVALID. */
export async function readSnapshots(configsDir: string, apiId: string, options: { maxPageBytes?: number } = {}): Promise<StoredSnapshot[]> {
  const folder = await folderOf(configsDir, apiId);
  const maxPageBytes = options.maxPageBytes ?? SNAPSHOT_MAX_PAGE_BYTES;
  let names: string[];
  try {
    names = await readdir(folder);
  } catch {
    return [];
  }
  const snapshots: StoredSnapshot[] = [];
  for (const file of names.filter((entry) => entry.endsWith('.json')).sort()) {
    const name = file.slice(0, -'.json'.length);
    if (!NAME_PATTERN.test(name) && !/^v-[0-9a-f]{16}$/.test(name)) continue;
    // Reviewed revisions kept by the daemon's repairs (`revision-<n>.json`) live here too; they are not snapshots.
    if (/^revision-\d+$/.test(name)) continue;
    const record = recordOf(await readSnapshotFile(folder, file, MAX_RECORD_BYTES, apiId, name), apiId, name);
    // The compressed page is never larger than the page.
    const html = await pageOf(await readSnapshotFile(folder, `${name}.html.gz`, maxPageBytes, apiId, name), maxPageBytes, apiId, name);
    const morePages: StoredSnapshot['morePages'] = [];
    let total = html.length;
    for (const [index, page] of (record.pages ?? []).entries()) {
      const text = await pageOf(
        await readSnapshotFile(folder, pageFileOf(name, index), maxPageBytes, apiId, name),
        maxPageBytes,
        apiId,
        name,
      );
      total += text.length;
      if (total > maxPageBytes * SNAPSHOT_PAGES_BOUND)
        throw unreadable(
          apiId,
          name,
          `its pages decompress to more than ${SNAPSHOT_PAGES_BOUND} times the largest page (${maxPageBytes} bytes) together`,
        );
      morePages.push({ ...page, html: text });
    }
    snapshots.push({ name, record, html, morePages });
  }
  return snapshots;
}

export interface DataDifference {
  path: string;
  kind: 'changed' | 'added' | 'removed';
  before?: unknown;
  after?: unknown;
}

/** Field-level differences between the stored data and a new extraction (array items by position). */
export function compareData(before: unknown, after: unknown, path = ''): DataDifference[] {
  if (JSON.stringify(before) === JSON.stringify(after)) return [];
  const isRecord = (value: unknown): value is Record<string, unknown> =>
    value !== null && typeof value === 'object' && !Array.isArray(value);
  if (isRecord(before) && isRecord(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])];
    return keys.flatMap((key) => {
      const at = path ? `${path}.${key}` : key;
      if (!Object.hasOwn(after, key)) return [{ path: at, kind: 'removed' as const, before: before[key] }];
      if (!Object.hasOwn(before, key)) return [{ path: at, kind: 'added' as const, after: after[key] }];
      return compareData(before[key], after[key], at);
    });
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const out: DataDifference[] = [];
    const length = Math.max(before.length, after.length);
    for (let i = 0; i < length; i++) {
      const at = `${path}[${i}]`;
      if (i >= after.length) out.push({ path: at, kind: 'removed', before: before[i] });
      else if (i >= before.length) out.push({ path: at, kind: 'added', after: after[i] });
      else out.push(...compareData(before[i], after[i], at));
    }
    return out;
  }
  return [{ path: path || '$', kind: 'changed', before, after }];
}
