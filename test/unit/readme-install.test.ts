import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain .mjs script of CI's package check, without types
import { readmeInstall } from '../../scripts/lib/readme-install.mjs';

/**
 * Issue 52 (item 6): the package check runs the README's install lines as written, so the README's own
 * block is what it reads; these pin what it takes from a README and that a rewrite without them is noticed.
 */
const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function readmeWith(block: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'pagejson-readme-'));
  dirs.push(dir);
  await writeFile(join(dir, 'README.md'), `# x\n\n## Installing\n\nText.\n\n\`\`\`sh\n${block}\`\`\`\n\n## Next\n`);
  return dir;
}

describe("the README's install lines", () => {
  it('are taken from the repository README as written: a global install of the checkout and of the packed file', () => {
    const install = readmeInstall(process.cwd()) as { checkout: string[]; pack: string[]; tarball: string[] };
    expect(install.checkout.at(-1)).toMatch(/^npm install -g .* \.$/);
    expect(install.pack).toEqual(['npm pack']);
    // npm matches a local file by its full path: the allowed name and the installed file are the same $PWD path.
    const tarball = install.tarball[0]!;
    const allowed = /--allow-scripts="?[^"\s]*?(\$PWD\/pagejson-[\d.]+\.tgz)/.exec(tarball)?.[1];
    expect(allowed).toBeDefined();
    expect(tarball.endsWith(`"${allowed}"`)).toBe(true);
  });

  it('leave out npm ci, which CI has just run, and keep every other step of a line', async () => {
    const dir = await readmeWith(
      '# a\nnpm ci && npm run build && npm install -g --allow-scripts=. .\n\nnpm ci && npm pack\nnpm install -g "$PWD/p.tgz"\n',
    );
    expect(readmeInstall(dir)).toEqual({
      checkout: ['npm run build', 'npm install -g --allow-scripts=. .'],
      pack: ['npm pack'],
      tarball: ['npm install -g "$PWD/p.tgz"'],
    });
  });

  it('are refused when the block lacks either way, as with `npm link` in place of the checkout install', async () => {
    const dir = await readmeWith('npm ci && npm run build && npm link\nnpm ci && npm pack\nnpm install -g "$PWD/p.tgz"\n');
    expect(() => readmeInstall(dir)).toThrow(/lacks the checkout install/);
  });
});
