import { placeholderNames, type ApiConfig, type Field } from '../config/index.js';
import { paginationChanges } from './pagination-edit.js';
import { actionChanges } from './actions-edit.js';
import { accessChanges } from './access-edit.js';
import { loginChanges } from './login-edit.js';

/**
 * What changed between two revisions of a config, in words a reviewer reads in a pull request
 * ("field books.price added (number)", "field title moved from 2 to 1"), not as a JSON diff.
 */
export type ChangeKind = 'added' | 'removed' | 'renamed' | 'moved' | 'changed' | 'setting' | 'variable';

export interface ConfigChange {
  kind: ChangeKind;
  /** Field path (dotted) or setting name. */
  subject: string;
  text: string;
}

const SETTINGS = ['description', 'status', 'url', 'scraper', 'session', 'caching', 'model', 'selector', 'rule', 'monitor'] as const;
const FIELD_FACETS = ['type', 'selector', 'attribute', 'transform', 'description', 'required', 'items'] as const;

function show(value: unknown): string {
  if (value === undefined) return '(none)';
  return typeof value === 'string' ? `"${value}"` : JSON.stringify(value);
}

export function describeChanges(before: ApiConfig, after: ApiConfig): ConfigChange[] {
  const changes: ConfigChange[] = [];
  for (const key of SETTINGS) {
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) {
      changes.push({ kind: 'setting', subject: key, text: `${key} changed from ${show(before[key])} to ${show(after[key])}` });
    }
  }
  // The URL's placeholders and the variables declared beside them (a variable used by actions or a body only).
  const oldVars = [...new Set([...placeholderNames(before.url), ...Object.keys(before.variables)])];
  const newVars = [...new Set([...placeholderNames(after.url), ...Object.keys(after.variables)])];
  for (const name of newVars)
    if (!oldVars.includes(name))
      changes.push({ kind: 'variable', subject: name, text: `variable ${name} added (example ${show(after.variables[name]?.example)})` });
  for (const name of oldVars)
    if (!newVars.includes(name)) changes.push({ kind: 'variable', subject: name, text: `variable ${name} removed` });
  for (const name of newVars) {
    if (oldVars.includes(name) && JSON.stringify(before.variables[name]) !== JSON.stringify(after.variables[name])) {
      changes.push({
        kind: 'variable',
        subject: name,
        text: `variable ${name} changed from ${show(before.variables[name])} to ${show(after.variables[name])}`,
      });
    }
  }
  changes.push(...actionChanges(before, after));
  changes.push(...accessChanges(before, after));
  changes.push(...loginChanges(before, after));
  changes.push(...paginationChanges(before, after));
  compareLevel(before.structure, after.structure, '', changes);
  return changes;
}

/** A field added, and each field nested in it (an array of objects added with its fields says them all). */
function addedWithFields(field: Field, prefix: string, changes: ConfigChange[]): void {
  changes.push({
    kind: 'added',
    subject: prefix + field.name,
    text: `field ${prefix}${field.name} added (${field.type}${field.selector ? `, selector ${show(field.selector)}` : ', model field'})`,
  });
  for (const nested of field.fields ?? []) addedWithFields(nested, `${prefix}${field.name}.`, changes);
}

/** Same type, selector and attribute: the evidence that a field was renamed rather than replaced. */
function sameShape(a: Field, b: Field): boolean {
  return a.type === b.type && a.selector === b.selector && a.attribute === b.attribute;
}

function compareLevel(before: Field[], after: Field[], prefix: string, changes: ConfigChange[]): void {
  const beforeNames = before.map((f) => f.name);
  const afterNames = after.map((f) => f.name);
  // A field that left and a field that arrived with the same type, selector and attribute read as a rename.
  const renamed = new Map<string, string>();
  const arrived = after.filter((f) => !beforeNames.includes(f.name));
  for (const old of before.filter((f) => !afterNames.includes(f.name))) {
    const match = arrived.find((f) => sameShape(old, f) && ![...renamed.values()].includes(f.name));
    if (match) renamed.set(old.name, match.name);
  }
  for (const [from, to] of renamed)
    changes.push({ kind: 'renamed', subject: prefix + to, text: `field ${prefix}${from} renamed to ${to}` });

  for (const field of after) {
    if (!beforeNames.includes(field.name) && ![...renamed.values()].includes(field.name)) addedWithFields(field, prefix, changes);
  }
  for (const field of before) {
    if (!afterNames.includes(field.name) && !renamed.has(field.name))
      changes.push({ kind: 'removed', subject: prefix + field.name, text: `field ${prefix}${field.name} removed` });
  }
  // A field moved when it is outside the longest common order of the shared fields: moving one field to the
  // top reports that field only, not every field it passed.
  const shared = beforeNames.map((name) => renamed.get(name) ?? name).filter((name) => afterNames.includes(name));
  const sharedAfter = afterNames.filter((name) => shared.includes(name));
  const stayed = longestCommonSubsequence(shared, sharedAfter);
  for (const name of sharedAfter) {
    if (stayed.has(name)) continue;
    const from = before.findIndex((f) => (renamed.get(f.name) ?? f.name) === name) + 1;
    const to = after.findIndex((f) => f.name === name) + 1;
    changes.push({ kind: 'moved', subject: prefix + name, text: `field ${prefix}${name} moved from position ${from} to ${to}` });
  }
  for (const field of after) {
    const oldName = [...renamed.entries()].find(([, to]) => to === field.name)?.[0] ?? field.name;
    const old = before.find((f) => f.name === oldName);
    if (!old) continue;
    for (const facet of FIELD_FACETS) {
      if (JSON.stringify(old[facet]) !== JSON.stringify(field[facet])) {
        changes.push({
          kind: 'changed',
          subject: prefix + field.name,
          text: `field ${prefix}${field.name}: ${facet} changed from ${show(old[facet])} to ${show(field[facet])}`,
        });
      }
    }
    compareLevel(old.fields ?? [], field.fields ?? [], `${prefix}${field.name}.`, changes);
  }
}

function longestCommonSubsequence(a: string[], b: string[]): Set<string> {
  const table = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) {
      table[i]![j] = a[i] === b[j] ? table[i + 1]![j + 1]! + 1 : Math.max(table[i + 1]![j]!, table[i]![j + 1]!);
    }
  }
  const kept = new Set<string>();
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      kept.add(a[i]!);
      i += 1;
      j += 1;
    } else if (table[i]![j + 1]! >= table[i + 1]![j]!) j += 1;
    else i += 1;
  }
  return kept;
}
