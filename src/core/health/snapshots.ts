import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { API_ID_PATTERN } from '../config/index.js';
import { PagejsonError, writeFileAtomic } from '../shared/index.js';

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
}

export interface StoredSnapshot {
  name: string;
  record: SnapshotRecord;
  html: string;
}

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
  return NAME_PATTERN.test(text) && text.length <= 80 ? text : `v-${createHash('sha256').update(JSON.stringify(names.map((name) => [name, variables[name]]))).digest('hex').slice(0, 16)}`;
}

function folderOf(configsDir: string, apiId: string): string {
  // apiIds come from validated configs; checked again because they become a path.
  if (!API_ID_PATTERN.test(apiId)) throw new PagejsonError('USAGE', `"${apiId}" is not an apiId`, { hint: 'apiIds are 1-64 characters of a-z, 0-9, _ and -' });
  return join(configsDir, SNAPSHOT_DIR, apiId);
}

/** Stable JSON: 2 spaces, keys of the record in a fixed order, a trailing newline. */
function recordText(record: SnapshotRecord): string {
  const ordered = { apiId: record.apiId, revision: record.revision, url: record.url, variables: record.variables, data: record.data };
  return `${JSON.stringify(ordered, null, 2)}\n`;
}

export async function writeSnapshot(configsDir: string, record: SnapshotRecord, html: string): Promise<{ name: string; dataFile: string; pageFile: string }> {
  const folder = folderOf(configsDir, record.apiId);
  await mkdir(folder, { recursive: true });
  const name = snapshotName(record.variables);
  const dataFile = join(folder, `${name}.json`);
  const pageFile = join(folder, `${name}.html.gz`);
  // gzip's header carries no time here (mtime 0), so the same page always compresses to the same bytes.
  await writeFileAtomic(pageFile, gzipSync(Buffer.from(html, 'utf8'), { level: 9 }));
  await writeFileAtomic(dataFile, recordText(record));
  return { name, dataFile, pageFile };
}

/** Rewrites only the expected data of a snapshot (`pagejson test --update`). */
export async function updateSnapshotData(configsDir: string, snapshot: StoredSnapshot, data: Record<string, unknown>, revision: number): Promise<void> {
  const folder = folderOf(configsDir, snapshot.record.apiId);
  await writeFileAtomic(join(folder, `${snapshot.name}.json`), recordText({ ...snapshot.record, revision, data }));
}

export async function readSnapshots(configsDir: string, apiId: string): Promise<StoredSnapshot[]> {
  const folder = folderOf(configsDir, apiId);
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
    try {
      const record = JSON.parse(await readFile(join(folder, file), 'utf8')) as SnapshotRecord;
      const html = gunzipSync(await readFile(join(folder, `${name}.html.gz`))).toString('utf8');
      snapshots.push({ name, record, html });
    } catch (error) {
      throw new PagejsonError('CONFIG_INVALID', `snapshot ${apiId}/${name} cannot be read: ${(error as Error).message}`, {
        context: { apiId, name },
        hint: `take it again with \`pagejson snapshot ${apiId}\`, or delete ${join(SNAPSHOT_DIR, apiId, name)}.*`,
      });
    }
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
  const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
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
