import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { actionSteps, actionValuesKey, actionVariableNames, describeActions, fillActionText } from '../../src/core/config/action-text.js';
import { configJsonSchema } from '../../src/core/config/json-schemas.js';
import { ApiConfigSchema, ProjectSettingsSchema, type ApiConfig } from '../../src/core/config/schema.js';
import { formatZodIssues } from '../../src/core/config/problems.js';
import { callerVariableNames, checkVariableValues, exampleValues, hasCallerVariables } from '../../src/core/config/url-template.js';
import { describeChanges } from '../../src/core/edit/describe-changes.js';
import { applyEdits } from '../../src/core/edit/operations.js';
import { checkConfigRules } from '../../src/core/registry/validate.js';
import { sourceOf } from '../../src/core/retrieval/stages/input.js';

/** `actions` of a config (docs/actions.md): the schema, the published JSON Schema, validate's rules, variables in text, edit and show. */
const base = {
  apiId: 'search',
  url: 'https://books.example/search',
  scraper: 3,
  structure: [{ name: 'results', type: 'array', selector: 'li', items: { type: 'string' } }],
};
const parse = (extra: Record<string, unknown>) => ApiConfigSchema.safeParse({ ...base, ...extra });
const config = (extra: Record<string, unknown>): ApiConfig => ApiConfigSchema.parse({ ...base, ...extra });
const messages = (extra: Record<string, unknown>) => {
  const result = parse(extra);
  return result.success
    ? []
    : formatZodIssues(result.error.issues, { raw: { ...base, ...extra }, schema: ApiConfigSchema }).map(
        (problem) => `${problem.path}: ${problem.message}`,
      );
};

const EVERY_STEP = [
  { ifExists: '#consent', then: [{ click: '#accept' }] },
  { type: '#q', text: '{{ q }}' },
  { select: '#sort', value: '{{ sort }}' },
  { press: 'Enter' },
  { wait: '.results li' },
  { waitMs: 250 },
  { scroll: 'bottom' },
];

describe('the actions schema', () => {
  it('takes every step of the vocabulary', () => {
    expect(parse({ actions: EVERY_STEP }).success).toBe(true);
  });

  it('refuses a typo, two verbs in one step, a verb without its companion and a companion without its verb, in words', () => {
    expect(messages({ actions: [{ clik: '#a' }] }).join('\n')).toMatch(
      /\$\.actions\[0\]\.clik: unknown key "clik" \(did you mean "click"\?\)/,
    );
    expect(messages({ actions: [{ click: '#a', wait: '#b' }] })).toContain(
      '$.actions[0].wait: a step does one thing, not click and wait: split it into two steps',
    );
    expect(messages({ actions: [{ type: '#q' }] })).toContain('$.actions[0].text: "type" needs "text" beside it');
    expect(messages({ actions: [{ click: '#a', value: 'x' }] })).toContain('$.actions[0].value: "value" belongs to "select"');
    expect(messages({ actions: [{ ifExists: '#c', then: [] }] }).join('\n')).toMatch(/\$\.actions\[0\]\.then/);
    expect(messages({ actions: [{ press: 'Enter; rm -rf' }] }).join('\n')).toMatch(/write a key as Playwright names it/);
    expect(messages({ actions: [{ waitMs: 120_000 }] }).join('\n')).toMatch(/\$\.actions\[0\]\.waitMs/);
  });

  it('takes 50 steps in all and refuses 51, counting those inside then', () => {
    const clicks = (n: number) => Array.from({ length: n }, () => ({ click: 'button' }));
    expect(parse({ actions: clicks(50) }).success).toBe(true);
    expect(messages({ actions: clicks(51) }).join('\n')).toMatch(/\$\.actions: .*50/);
    expect(parse({ actions: [...clicks(40), { ifExists: '#x', then: clicks(9) }] }).success).toBe(true);
    expect(messages({ actions: [...clicks(40), { ifExists: '#x', then: clicks(10) }] })).toContain(
      '$.actions: at most 50 actions in all (those inside "then" included), not 51',
    );
  });

  it('is in the published JSON Schema with one verb per step', () => {
    const validate = new Ajv2020({ strict: false }).compile(configJsonSchema());
    expect(validate({ ...base, actions: EVERY_STEP })).toBe(true);
    expect(validate({ ...base, actions: [{ click: '#a', wait: '#b' }] })).toBe(false);
    expect(validate({ ...base, actions: [{ type: '#q' }] })).toBe(false);
    expect(validate({ ...base, actions: [{ clik: '#a' }] })).toBe(false);
    expect(validate({ ...base, actions: Array.from({ length: 51 }, () => ({ click: 'a' })) })).toBe(false);
  });

  it('gives pagejson.json a fetch.actionsTimeoutMs of 10 s by default', () => {
    expect(ProjectSettingsSchema.parse({}).fetch.actionsTimeoutMs).toBe(10_000);
    expect(ProjectSettingsSchema.safeParse({ fetch: { actionsTimeoutMs: 0 } }).success).toBe(false);
  });
});

describe('request variables in step text', () => {
  const searching = config({ variables: { q: { example: 'light', pattern: '[a-z ]+' }, sort: { example: 'asc' } }, actions: EVERY_STEP });

  it("are the endpoint's variables: it takes them (POST or GET query) and checks them like URL variables", () => {
    expect(actionVariableNames(searching.actions)).toEqual(['q', 'sort']);
    expect(callerVariableNames(searching)).toEqual(['q', 'sort']);
    expect(hasCallerVariables(searching)).toBe(true);
    expect(exampleValues(searching)).toEqual({ q: 'light', sort: 'asc' });
    expect(checkVariableValues(searching, { q: 'light', sort: 'desc' })).toEqual([]);
    expect(checkVariableValues(searching, { q: 'LIGHT!', sort: 'desc' }).map((problem) => problem.message)).toEqual([
      'variable q does not match [a-z ]+',
    ]);
    expect(checkVariableValues(searching, { sort: 'desc' }).map((problem) => problem.message)).toEqual(['missing variable: q']);
  });

  it('are filled as each step runs, from own values only, and never re-read', () => {
    expect(fillActionText('find {{ q }} now', { q: '{{ sort }}', sort: 'x' })).toBe('find {{ sort }} now');
    expect(fillActionText('{{ constructor }}', {})).toBe('');
  });

  it('make answers of their own in the cache, and a static endpoint keeps its one key', () => {
    const light = sourceOf(searching, { q: 'light', sort: 'asc' });
    const dark = sourceOf(searching, { q: 'dark', sort: 'asc' });
    expect(light.sourceUrl).toBe(dark.sourceUrl);
    expect(light.entryKey).not.toBe(dark.entryKey);
    expect(sourceOf(searching, { q: 'light', sort: 'asc' }).entryKey).toBe(light.entryKey);
    expect(actionValuesKey([{ click: '#go' }], { q: 'x' })).toBe('');
  });

  it("are shown as written in a step, never with a request's values", () => {
    expect(describeActions(searching.actions!)).toEqual([
      { step: '1', text: 'if "#consent" is there:' },
      { step: '1.1', text: 'click "#accept"' },
      { step: '2', text: 'type "{{ q }}" into "#q"' },
      { step: '3', text: 'select "{{ sort }}" in "#sort"' },
      { step: '4', text: 'press Enter' },
      { step: '5', text: 'wait for ".results li"' },
      { step: '6', text: 'wait 250 ms' },
      { step: '7', text: 'scroll to the bottom' },
    ]);
  });

  it('go to the browser only for scraper 3', () => {
    expect(actionSteps(searching, { q: 'x' })).toEqual({ steps: { actions: searching.actions, values: { q: 'x' } } });
    expect(actionSteps({ ...searching, scraper: 1 }, { q: 'x' })).toEqual({});
  });
});

describe('validate on actions', () => {
  const rules = (extra: Record<string, unknown>) =>
    checkConfigRules(config(extra), 'search.json').map((problem) => `${problem.path}: ${problem.message}`);

  it('refuses actions on scrapers 1 and 2, in words', () => {
    expect(rules({ scraper: 1, actions: [{ click: '#go' }] })).toContain(
      '$.actions: actions need scraper 3 (the browser): scraper 1 (http) reads the page as it loads and cannot click, type or wait',
    );
    expect(rules({ scraper: 2, actions: [{ click: '#go' }] })[0]).toMatch(/^\$\.actions: actions need scraper 3 .* scraper 2 \(crawlee\)/);
    expect(rules({ scraper: 3, actions: [{ click: '#go' }] })).toEqual([]);
  });

  it('refuses a variable the text uses without an entry in variables, and does not call a text variable unused', () => {
    expect(rules({ actions: [{ type: '#q', text: '{{ q }}' }] })).toContain('$.variables: placeholder {{ q }} has no entry in variables');
    expect(rules({ variables: { q: { example: 'x' } }, actions: [{ type: '#q', text: '{{ q }}' }] })).toEqual([]);
    expect(rules({ variables: { q: { example: 'x' } } })).toContain('$.variables.q: variable "q" has no {{ q }} placeholder in the url');
  });

  it('refuses a selector that does not parse and a malformed placeholder, at their place', () => {
    expect(rules({ actions: [{ ifExists: '#c', then: [{ click: 'button[' }] }] })[0]).toMatch(
      /^\$\.actions\[0\]\.then\[0\]\.click: CSS selector does not parse/,
    );
    expect(rules({ actions: [{ type: '#q', text: '{{ q' }] })).toContain('$.actions[0].text: the text holds a malformed placeholder');
  });
});

describe('edit --set actions', () => {
  const start = config({});

  it('sets the list from JSON, describes the change in words, and removes it with off', () => {
    const { config: edited, changed } = applyEdits(start, [
      { kind: 'set', key: 'actions', value: '[{"ifExists":"#consent","then":[{"click":"#accept"}]},{"wait":".results li"}]' },
    ]);
    expect(changed).toBe(true);
    expect(edited.actions).toEqual([{ ifExists: '#consent', then: [{ click: '#accept' }] }, { wait: '.results li' }]);
    expect(describeChanges(start, edited).map((change) => change.text)).toContain(
      'actions added: 1. if "#consent" is there: click "#accept"; 2. wait for ".results li"',
    );
    const removed = applyEdits(edited, [{ kind: 'set', key: 'actions', value: 'off' }]).config;
    expect(removed.actions).toBeUndefined();
    expect(describeChanges(edited, removed).map((change) => change.text)).toContain('actions removed');
  });

  it('refuses what is not JSON or not steps, naming the place', () => {
    expect(() => applyEdits(start, [{ kind: 'set', key: 'actions', value: '[{click:"#a"}]' }])).toThrow(
      /actions must be a JSON list of steps/,
    );
    expect(() => applyEdits(start, [{ kind: 'set', key: 'actions', value: '[{"click":"#a"},{"type":"#q"}]' }])).toThrow(
      'actions[1].text: "type" needs "text" beside it',
    );
  });
});
