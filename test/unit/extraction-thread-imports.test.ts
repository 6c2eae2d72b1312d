import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The extraction thread loads only what an extraction needs: each thread that also loaded the fetch stage
 * (its HTTP client, stores and pools) carried ~11 MB more and collected garbage far more often
 * (docs/performance.md, issue 53). Follows the value imports (not `import type`) of the thread's entry.
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const ENTRY = resolve(root, 'src/core/extract/workers/run-extraction.ts');
const VALUE_IMPORT = /^\s*(?:import|export)\s+(?!type\b)(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;

function valueGraph(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(VALUE_IMPORT)) {
      if (specifier!.startsWith('.')) pending.push(resolve(dirname(file), specifier!.replace(/\.js$/, '.ts')));
      else if (!specifier!.startsWith('node:')) packages.add(specifier!);
    }
  }
  return { files, packages };
}

describe('the extraction thread', () => {
  it('loads neither the fetch stage nor its network and storage packages', () => {
    const { files, packages } = valueGraph(ENTRY);
    const fromFetch = [...files].filter((file) => file.includes('/src/core/fetch/'));
    expect(fromFetch).toEqual([]);
    for (const heavy of ['undici', 'lowdb', 'piscina', 'ipaddr.js', 'playwright-core', 'crawlee']) expect(packages).not.toContain(heavy);
    // The walk reads the thread's real code: the HTML parser and the selector engine are in it.
    expect(packages).toContain('htmlparser2');
    expect(packages).toContain('css-select');
  });
});
