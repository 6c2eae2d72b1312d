import { describe, expect, it } from 'vitest';
import type { Field } from '../../src/core/config/schema.js';
import { compileStructure } from '../../src/core/extract/engine/index.js';
import { detailSites } from '../support/detail-sites.js';
import { generateWithHeuristic } from '../support/heuristic-generate.js';

/**
 * An endpoint holds across its site (issue 46 item 3): a config generated on one page of a template reads the
 * same facts right on the template's other nine pages, whose items and optional parts differ. No selector may
 * hold what belongs to one item (its id, a class named after it, its text).
 */

/** The data's scalar values by field name, nested objects flattened (the first field of a name wins). */
function byName(data: Record<string, unknown>, into = new Map<string, unknown>()): Map<string, unknown> {
  for (const [name, value] of Object.entries(data)) {
    if (value && typeof value === 'object' && !Array.isArray(value)) byName(value as Record<string, unknown>, into);
    else if (!into.has(name)) into.set(name, value);
  }
  return into;
}

function selectors(fields: Field[]): string[] {
  return fields.flatMap((field) => [field.selector ?? '', ...selectors(field.fields ?? [])]);
}

describe('endpoints that hold across a site of detail pages', () => {
  for (const site of detailSites()) {
    for (const generatedOn of [0, 1]) {
      it(`${site.template}: generated on page ${generatedOn + 1}, every fact found and right on the other nine`, async () => {
        const page = site.pages[generatedOn]!;
        const { structure, data } = await generateWithHeuristic(page.html, `https://site.example/item/${generatedOn}`);
        const found = byName(data);
        // Every fact of the generation page is a field holding the value without its label.
        for (const [name, value] of Object.entries(page.facts)) expect([name, found.get(name)]).toEqual([name, value]);
        // Nothing of this one item in a selector: not its values, ids or the classes named after it.
        const written = selectors(structure).join('\n');
        for (const value of Object.values(page.facts).filter((value) => value.length >= 3)) expect(written).not.toContain(value);
        expect(written).not.toMatch(/product-97|book-97|gadget-\d|object-\d|recipe-[a-z]|listing-\d/);
        const engine = compileStructure({ selector: 'body', structure });
        site.pages.forEach((other, index) => {
          const read = byName(engine.extract(other.html, `https://site.example/item/${index}`).data);
          for (const name of Object.keys(page.facts)) {
            // A fact the page does not show (no subtitle) is null, never another fact's value.
            expect([index, name, read.get(name) ?? null]).toEqual([index, name, other.facts[name] ?? null]);
          }
        });
      });
    }
  }
});
