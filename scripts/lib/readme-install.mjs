// The install commands of the README's "Installing" section, as a user copies them: the package check runs
// these lines as written (scripts/check-package.mjs), so that the README cannot drift from what CI tried.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The section's `sh` block, its command lines in order (comments and blank lines dropped). Each line is split
 * on `&&` into steps; `npm ci`, which `.ci/run` has just run on this checkout, is left out by the caller.
 */
export function readmeInstallLines(root) {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = /^## Installing\n([\s\S]*?)^## /m.exec(readme)?.[1];
  const block = section && /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('README.md has no ```sh block under "## Installing"');
  return block
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => line.split('&&').map((part) => part.trim()));
}

/**
 * The two ways the README installs: from a checkout (a line ending in a global install of `.`), and from the
 * package file (the line with `npm pack`, then the global install of the tarball). Throws when either is
 * missing, so that a README rewrite is noticed here.
 */
export function readmeInstall(root) {
  const lines = readmeInstallLines(root);
  const checkout = lines.find((steps) => / \.$/.test(steps.at(-1)) && steps.at(-1).startsWith('npm install -g'));
  const packIndex = lines.findIndex((steps) => steps.includes('npm pack'));
  const tarball = lines[packIndex + 1]?.at(-1);
  if (!checkout || packIndex === -1 || !tarball?.startsWith('npm install -g'))
    throw new Error('README.md\'s "Installing" block lacks the checkout install or the npm pack + npm install -g pair');
  const withoutCi = (steps) => steps.filter((step) => step !== 'npm ci');
  return { checkout: withoutCi(checkout), pack: withoutCi(lines[packIndex]), tarball: [tarball] };
}
