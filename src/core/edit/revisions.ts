import { mkdir, readdir, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { API_ID_PATTERN, serializeConfig, withAccessShown, withLoginShown, type ApiConfig } from '../config/index.js';
import { parseConfigText } from '../registry/index.js';
import { prepareDataDir, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../shared/index.js';
import { describeChanges, type ConfigChange } from './describe-changes.js';

/**
 * Earlier revisions of a config, kept in the data dir when a save replaces them (`pagejson edit`, the
 * dashboard): `<dataDir>/revisions/<apiId>/<revision>.json`, the newest KEPT_REVISIONS per endpoint. Git keeps
 * the project's history; this lets the dashboard show "what changed in each revision" without a repository.
 */
export const KEPT_REVISIONS = 50;

/** A revision as shown: its access and its login masked as the endpoint view masks them (issue 45). */
function shownConfig(config: ApiConfig): ApiConfig {
  return withLoginShown(withAccessShown(config));
}
const MAX_REVISION_BYTES = 1024 * 1024;

export interface RevisionView {
  revision: number;
  /** When this revision was replaced by a later one (null: the current file). */
  replacedAt: string | null;
  /** What this revision changed compared with the one before it (null: the one before is not kept). */
  changes: ConfigChange[] | null;
  /** The same as a unified diff of the two files (as `serializeConfig` writes them), or null. */
  patch: string | null;
  config: ApiConfig;
}

function folderOf(dataDir: string, apiId: string): string {
  // apiIds are checked by every caller; checked again here because the id becomes a path.
  if (!API_ID_PATTERN.test(apiId)) throw new RangeError(`not an apiId: ${JSON.stringify(apiId)}`);
  return join(dataDir, 'revisions', apiId);
}

/** Keep `config` (about to be replaced) and drop the oldest kept ones past KEPT_REVISIONS. */
export async function keepRevision(dataDir: string, config: ApiConfig): Promise<void> {
  const folder = folderOf(dataDir, config.apiId);
  // Only into a data dir that is this user's alone (docs/security.md, "Files of the data dir").
  await prepareDataDir(dataDir);
  await mkdir(folder, { recursive: true, mode: PRIVATE_DIR_MODE });
  await writeFile(join(folder, `${config.revision}.json`), serializeConfig(config), { mode: PRIVATE_FILE_MODE });
  const numbers = await keptNumbers(folder);
  for (const old of numbers.slice(KEPT_REVISIONS)) await unlink(join(folder, `${old}.json`)).catch(() => undefined);
}

/** Newest first. Files that are not `<n>.json` are ignored. */
async function keptNumbers(folder: string): Promise<number[]> {
  const names = await readdir(folder).catch(() => [] as string[]);
  return names
    .map((name) => /^([1-9][0-9]{0,8})\.json$/.exec(name))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => Number(match[1]))
    .sort((a, b) => b - a);
}

/** The current config and every kept revision before it, newest first, each with what it changed. */
export async function listRevisions(dataDir: string, current: ApiConfig): Promise<RevisionView[]> {
  const folder = folderOf(dataDir, current.apiId);
  const kept: Array<{ config: ApiConfig; replacedAt: string }> = [];
  for (const number of await keptNumbers(folder)) {
    if (number >= current.revision) continue;
    const file = join(folder, `${number}.json`);
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile() || info.size > MAX_REVISION_BYTES) continue;
    // Parsed under the name of the config file it was (the rules want the file's stem to be the apiId).
    const parsed = parseConfigText(await readFile(file, 'utf8'), join(folder, `${current.apiId}.json`));
    if (parsed.ok && parsed.config.apiId === current.apiId) kept.push({ config: parsed.config, replacedAt: info.mtime.toISOString() });
  }
  const all = [{ config: current, replacedAt: null as string | null }, ...kept];
  return all.map((entry, index) => {
    const before = all[index + 1];
    const adjacent = before !== undefined && before.config.revision === entry.config.revision - 1;
    const name = `${entry.config.apiId}.json`;
    return {
      revision: entry.config.revision,
      replacedAt: entry.replacedAt,
      changes: adjacent ? describeChanges(before.config, entry.config) : null,
      patch: adjacent
        ? createTwoFilesPatch(
            `${name} (revision ${before.config.revision})`,
            `${name} (revision ${entry.config.revision})`,
            serializeConfig(shownConfig(before.config)),
            serializeConfig(shownConfig(entry.config)),
            undefined,
            undefined,
            { context: 2 },
          )
            .split('\n')
            // The first line is a rule of '=' signs; the last is empty.
            .slice(1, -1)
            .join('\n')
        : null,
      // Shown in the dashboard: a credential written into a file is masked there (config/access-display.ts).
      config: shownConfig(entry.config),
    };
  });
}
