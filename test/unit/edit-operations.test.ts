import { describe, expect, it } from 'vitest';
import { ApiConfigSchema, type ApiConfig } from '../../src/core/config/schema.js';
import { serializeConfig } from '../../src/core/config/write.js';
import { describeChanges } from '../../src/core/edit/describe-changes.js';
import { applyEdits, parseAddSpec, type EditOperation } from '../../src/core/edit/operations.js';

const base: ApiConfig = ApiConfigSchema.parse({
  apiId: 'books',
  revision: 3,
  url: 'https://shop.example/catalogue/travel/index.html?page=1',
  structure: [
    { name: 'title', type: 'string', selector: 'h1' },
    { name: 'count', type: 'integer', selector: '.count' },
    {
      name: 'books',
      type: 'array',
      selector: 'article.product',
      fields: [
        { name: 'name', type: 'string', selector: 'h3 a', attribute: 'title' },
        { name: 'price', type: 'number', selector: '.price', transform: ['number'] },
      ],
    },
  ],
});

describe('edit operations', () => {
  it('applies several edits in order and bumps the revision once', () => {
    const ops: EditOperation[] = [
      parseAddSpec('books.rating:number=.star-rating'),
      { kind: 'rename', path: 'books.name', name: 'bookTitle' },
      { kind: 'move', path: 'books.rating', position: 1 },
      { kind: 'remove', path: 'count' },
      { kind: 'set', key: 'caching', value: 'false' },
      { kind: 'set', key: 'books.price.selector', value: 'p.price_color' },
      { kind: 'var', spec: 'path:2', name: 'category' },
      { kind: 'var', spec: 'query:page', name: 'page' },
    ];
    const { config, changed } = applyEdits(base, ops);
    expect(changed).toBe(true);
    expect(config.revision).toBe(4);
    expect(config.structure.map((f) => f.name)).toEqual(['title', 'books']);
    expect(config.structure[1]!.fields!.map((f) => f.name)).toEqual(['rating', 'bookTitle', 'price']);
    expect(config.structure[1]!.fields![2]!.selector).toBe('p.price_color');
    expect(config.caching).toBe(false);
    expect(config.url).toBe('https://shop.example/catalogue/{{ category }}/index.html?page={{ page }}');
    expect(config.variables).toEqual({ category: { example: 'travel' }, page: { example: '1' } });
    expect(base.structure).toHaveLength(3); // the input was not mutated
  });

  it('an edit that changes nothing leaves revision and bytes as they were', () => {
    const { config, changed } = applyEdits(base, [
      { kind: 'set', key: 'caching', value: 'true' },
      { kind: 'move', path: 'title', position: 1 },
    ]);
    expect(changed).toBe(false);
    expect(serializeConfig(config)).toBe(serializeConfig(base));
  });

  it('says why an edit cannot apply', () => {
    expect(() => applyEdits(base, [{ kind: 'remove', path: 'books.nope' }])).toThrow(/no field "nope" in books/);
    expect(() => applyEdits(base, [{ kind: 'move', path: 'title', position: 9 }])).toThrow(/outside 1..3/);
    expect(() => applyEdits(base, [{ kind: 'rename', path: 'title', name: 'count' }])).toThrow(/already exists/);
    expect(() => applyEdits(base, [{ kind: 'set', key: 'scraper', value: '7' }])).toThrow(/scraper must be 1, 2 or 3/);
    expect(() => applyEdits(base, [{ kind: 'set', key: 'colour', value: 'red' }])).toThrow(/cannot set "colour"/);
    expect(() => parseAddSpec('books.rating')).toThrow(/cannot read --add "books.rating"/);
    expect(() => parseAddSpec('x:float')).toThrow(/unknown field type/);
    expect(() => applyEdits(base, [parseAddSpec('title.sub:string=b')])).toThrow(/is a string/);
  });
});

describe('variables by name (the text of browser actions)', () => {
  const set = (key: string, value: string): EditOperation => ({ kind: 'set', key, value });
  const edit = (config: ApiConfig, ops: EditOperation[]): ApiConfig => applyEdits(config, ops).config;

  it('declares a variable with its example and pattern, changes it, and removes it', () => {
    const declared = edit(base, [set('variables.q.example', 'light'), set('variables.q.pattern', '[a-z ]{1,40}')]);
    expect(declared.variables).toEqual({ q: { example: 'light', pattern: '[a-z ]{1,40}' } });
    const changed = edit(declared, [set('variables.q.pattern', '')]);
    expect(changed.variables).toEqual({ q: { example: 'light' } });
    expect(edit(changed, [set('variables.q', 'off')]).variables).toEqual({});
  });

  it('refuses what names nothing, a property before the example, and removing a variable of the URL', () => {
    expect(() => edit(base, [set('variables.q.pattern', 'x')])).toThrow(/variables\.q has no example yet/);
    expect(() => edit(base, [set('variables.q.colour', 'x')])).toThrow(/unknown property/);
    expect(() => edit(base, [set('variables.q', 'light')])).toThrow(/set by its parts or removed with off/);
    const dynamic = edit(base, [{ kind: 'var', spec: 'query:page', name: 'page' }]);
    expect(() => edit(dynamic, [set('variables.page', 'off')])).toThrow(/part of the URL.*|unvar/);
  });

  it('keeps outside names out of the prototype', () => {
    expect(() => edit(base, [set('variables.__proto__.example', 'x')])).toThrow(/is not a variable name/);
    expect(() => edit(base, [set('variables.constructor.example', 'x')])).not.toThrow();
    const made = edit(base, [set('variables.constructor.example', 'x')]);
    expect(Object.getPrototypeOf(made.variables)).toBe(Object.prototype);
    expect(Object.hasOwn(made.variables, 'constructor')).toBe(true);
    expect(({} as Record<string, unknown>).constructor).toBe(Object);
  });
});

describe('describing changes in words', () => {
  it('names added, removed, renamed, moved and changed fields, settings and variables', () => {
    const { config } = applyEdits(base, [
      parseAddSpec('books.rating:number=.star-rating'),
      { kind: 'rename', path: 'books.name', name: 'bookTitle' },
      { kind: 'move', path: 'books', position: 1 },
      { kind: 'remove', path: 'count' },
      { kind: 'set', key: 'books.price.type', value: 'string' },
      { kind: 'set', key: 'scraper', value: '2' },
      { kind: 'var', spec: 'path:2', name: 'category' },
    ]);
    const texts = describeChanges(base, config).map((c) => c.text);
    expect(texts).toContain('variable category added (example "travel")');
    expect(texts).toContain('field count removed');
    expect(texts).toContain('field books moved from position 3 to 1');
    expect(texts.filter((t) => t.includes(' moved from '))).toHaveLength(1);
    expect(texts).toContain('field books.name renamed to bookTitle');
    expect(texts).toContain('field books.rating added (number, selector ".star-rating")');
    expect(texts).toContain('field books.price: type changed from "number" to "string"');
    expect(texts).toContain('scraper changed from 1 to 2');
  });

  it('reports nothing for identical configs', () => {
    expect(describeChanges(base, structuredClone(base))).toEqual([]);
  });
});

describe('an array of objects from flags (issue 52)', () => {
  it('a list of strings made by --add PATH:array becomes a list of objects by its first nested field; the summary names each field', () => {
    const { config } = applyEdits(base, [
      parseAddSpec('articles:array=article'),
      parseAddSpec('articles.title:string=h3'),
      parseAddSpec('articles.price:number=.price'),
    ]);
    const articles = config.structure.find((field) => field.name === 'articles')!;
    expect(articles.items).toBeUndefined();
    expect(articles.fields!.map((field) => field.name)).toEqual(['title', 'price']);
    expect(ApiConfigSchema.safeParse(config).success).toBe(true);
    expect(describeChanges(base, config).map((change) => change.text)).toEqual([
      'field articles added (array, selector "article")',
      'field articles.title added (string, selector "h3")',
      'field articles.price added (number, selector ".price")',
    ]);
  });

  it('a list whose items read an attribute is refused with a step flags can do', () => {
    const links = applyEdits(base, [parseAddSpec('links:array=a'), { kind: 'set', key: 'links.attribute', value: 'href' }]).config;
    expect(() => applyEdits(links, [parseAddSpec('links.title:string=a')])).toThrow(
      /"links" is an array of string values read with attribute/,
    );
  });

  it('the summary names variables declared beside the URL (those actions type) as well as the URL’s', () => {
    const { config } = applyEdits(base, [
      { kind: 'set', key: 'variables.q.example', value: 'desk' },
      { kind: 'var', spec: 'query:page', name: 'page' },
    ]);
    const texts = describeChanges(base, config).map((change) => change.text);
    expect(texts).toContain('variable q added (example "desk")');
    expect(texts).toContain('variable page added (example "1")');
    const described = applyEdits(config, [{ kind: 'set', key: 'variables.q.description', value: 'what to search' }]).config;
    expect(describeChanges(config, described).map((change) => change.text)).toEqual([
      'variable q changed from {"example":"desk"} to {"example":"desk","description":"what to search"}',
    ]);
  });
});
