// The stamp of what `npm run build` reads: paths, sizes and modification times of the sources. The build writes
// it to dist/.build-stamp when it ends (scripts/build-stamp.mjs); the tests' ensureBuilt
// (test/support/build-once.ts) builds again only when the sources' stamp differs from it.
import { createHash } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

const SOURCE_DIRS = ['src', 'test/support', 'bench', 'demo'];
const SOURCE_FILES = ['tsconfig.json', 'tsconfig.build.json', 'package.json'];

/** Where the build leaves the stamp of the sources it was made from. */
export const stampFile = (root) => join(root, 'dist/.build-stamp');

async function walk(dir, out) {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await walk(path, out);
    else if (/\.(c?ts|tsx|css|html)$/.test(entry.name)) out.push(path);
  }
}

/**
 * A digest of everything the build reads (TypeScript, and the dashboard's TSX, CSS and HTML): it changes whenever
 * a source file is added, removed or edited.
 */
export async function sourceStamp(root) {
  const files = [];
  for (const dir of SOURCE_DIRS) await walk(join(root, dir), files);
  for (const file of SOURCE_FILES) files.push(join(root, file));
  files.sort();
  const hash = createHash('sha256');
  for (const file of files) {
    try {
      const info = await stat(file);
      hash.update(`${file}\0${info.size}\0${info.mtimeMs}\n`);
    } catch {
      hash.update(`${file}\0missing\n`);
    }
  }
  return hash.digest('hex');
}
