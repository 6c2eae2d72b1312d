import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
// @ts-expect-error eslint.config.js is plain JavaScript; its stage list is the one the lint rule enforces.
import { CORE_LAYERS } from '../../eslint.config.js';

const core = join(import.meta.dirname, '../../src/core');
const stages = CORE_LAYERS as string[];

describe('src/core is laid out by stage (docs/architecture.md)', () => {
  it('holds the composition root and one folder per stage, each with an index.ts', () => {
    const entries = readdirSync(core);
    const files = entries.filter((entry) => statSync(join(core, entry)).isFile());
    const folders = entries.filter((entry) => statSync(join(core, entry)).isDirectory());
    expect(files).toEqual(['runtime.ts']);
    expect([...folders].sort()).toEqual([...stages].sort());
    for (const folder of folders) expect(readdirSync(join(core, folder)), folder).toContain('index.ts');
  });

  it('the composition root imports each stage through its index.ts', () => {
    const source = readFileSync(join(core, 'runtime.ts'), 'utf8');
    const relative = [...source.matchAll(/from '(\.[^']+)'|import\('(\.[^']+)'\)/g)].map((match) => match[1] ?? match[2]);
    expect(relative.length).toBeGreaterThan(5);
    for (const specifier of relative) expect(specifier).toMatch(/^\.\/[a-z-]+\/index\.js$/);
  });

  it('lint refuses an import of a higher stage, and one past a lower stage index', async () => {
    const eslint = new ESLint({ cwd: join(import.meta.dirname, '../..') });
    const lint = async (file: string, code: string) =>
      (await eslint.lintText(code, { filePath: join(core, file) }))[0]!.messages.filter(
        (message) => message.ruleId === 'boundaries/dependencies',
      );
    expect(
      await lint('config/probe.ts', "import { retrieve } from '../retrieval/index.js';\nexport const probe = retrieve;\n"),
    ).toHaveLength(1);
    expect(
      await lint('config/probe.ts', "import { PagejsonError } from '../shared/errors.js';\nexport const probe = PagejsonError;\n"),
    ).toHaveLength(1);
    expect(
      await lint('config/probe.ts', "import { PagejsonError } from '../shared/index.js';\nexport const probe = PagejsonError;\n"),
    ).toHaveLength(0);
    expect(
      await lint('retrieval/probe.ts', "import { PagejsonError } from '../shared/index.js';\nexport const probe = PagejsonError;\n"),
    ).toHaveLength(0);
  });
});
