import { describe, expect, it } from 'vitest';
import type { Field } from '../../src/core/config/schema.js';
import { isPagejsonError } from '../../src/core/shared/errors.js';
import { compileStructure, getStructureOutline, outlineStructure } from '../../src/core/extract/engine/index.js';

/**
 * The daemon's main thread reads a structure's outline (model fields, `assess`) instead of compiling it: the
 * outline must say what the compiled structure says, for every way a field can be read.
 */
const structure: Field[] = [
  { name: 'title', type: 'string', selector: 'h1', required: true },
  { name: 'summary', type: 'string', required: true },
  { name: 'tags', type: 'array', selector: '.tag' },
  { name: 'related', type: 'array' },
  {
    name: 'seller',
    type: 'object',
    selector: '.seller',
    fields: [
      { name: 'name', type: 'string', selector: '.name', required: true },
      { name: 'rating', type: 'number' },
    ],
  },
  { name: 'extra', type: 'object', selector: '.extra' },
  { name: 'about', type: 'object' },
  {
    name: 'items',
    type: 'array',
    selector: 'li',
    fields: [
      { name: 'label', type: 'string', selector: 'a', required: true },
      { name: 'blurb', type: 'string', required: true },
    ],
  },
];

const samples: Array<Record<string, unknown>> = [
  {},
  {
    title: 'T',
    summary: 'S',
    tags: ['a'],
    related: [],
    seller: { name: 'N', rating: 4 },
    extra: null,
    about: null,
    items: [{ label: 'x', blurb: null }],
  },
  { title: '', summary: null, tags: [], related: [], seller: { name: '', rating: null }, extra: null, about: null, items: [] },
  { title: null, summary: null, tags: [], related: [], seller: null, extra: null, about: null, items: [] },
  { title: 'T', summary: 'S', seller: 'not an object' },
];

describe('the structure outline', () => {
  it('names the same model fields and assesses data as the compiled structure does', () => {
    const compiled = compileStructure({ structure });
    const outline = outlineStructure(structure);
    expect(outline.modelFields.map(({ path, inArray, field }) => ({ path, inArray, name: field.name }))).toEqual(
      compiled.modelFields.map(({ path, inArray, field }) => ({ path, inArray, name: field.name })),
    );
    expect(outline.modelFields.map((entry) => entry.path)).toEqual(['summary', 'related', 'seller.rating', 'about', 'items.blurb']);
    for (const data of samples) expect(outline.assess(data)).toEqual(compiled.assess(data));
    expect(outline.assess(samples[2]!)).toEqual({ empty: true, missingRequired: ['title', 'summary', 'seller.name'] });
  });

  it('compiles nothing: a selector that does not parse fails the compiled structure only', () => {
    const broken: Field[] = [
      { name: 'title', type: 'string', selector: 'h1[' },
      { name: 'summary', type: 'string' },
    ];
    let thrown: unknown;
    try {
      compileStructure({ structure: broken });
    } catch (error) {
      thrown = error;
    }
    expect(isPagejsonError(thrown) && thrown.code).toBe('CONFIG_INVALID');
    expect(outlineStructure(broken).modelFields.map((entry) => entry.path)).toEqual(['summary']);
  });

  it('is kept per structure object: the same one for the same object, a new one for an edited copy', () => {
    const first = getStructureOutline(structure);
    expect(getStructureOutline(structure)).toBe(first);
    const edited = structure.map((field) => (field.name === 'summary' ? { ...field, selector: '.summary' } : field));
    const second = getStructureOutline(edited);
    expect(second).not.toBe(first);
    expect(second.modelFields.map((entry) => entry.path)).not.toContain('summary');
  });
});
