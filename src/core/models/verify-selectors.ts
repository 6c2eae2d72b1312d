import type { Field } from '../config/index.js';
import { compileSelector, parseHtml, type HtmlDocument } from '../extract/index.js';

/**
 * A model may invent selectors. Each one is tried on the real section before the structure is offered, with
 * the same selector engine retrieval uses (relative selectors such as `> td` included):
 * a top-level field whose selector matches nothing becomes a model field (its selector removed, so it is
 * filled by the model at retrieval instead of silently yielding null forever); a nested field of an
 * array or object that matches inside none of its scopes is dropped, because model fields are filled
 * per page, not per list item. A container left without fields becomes a model field as a whole.
 */
export interface VerifiedStructure {
  structure: Field[];
  /** Dotted paths of fields whose selector matched nothing, for messages. */
  unmatched: string[];
  /** What became of each field the model asked for that matched nothing, and why: said by `generate`. */
  notes: FieldNote[];
}

/** A field the model proposed that is not kept as proposed: dropped (nested), or kept as a model field (top level). */
export interface FieldNote {
  field: string;
  outcome: 'dropped' | 'model field';
  reason: string;
}

type Scope = HtmlDocument | ReturnType<ReturnType<typeof compileSelector>['select']>[number];

function matches(selector: string, scopes: Scope[]): Scope[] {
  try {
    return compileSelector(selector).select(scopes);
  } catch {
    // An invalid selector matches nothing; it is reported like a non-matching one.
    return [];
  }
}

export function verifySelectors(structure: Field[], sectionHtml: string): VerifiedStructure {
  const document = parseHtml(sectionHtml);
  const unmatched: string[] = [];
  const reasons = new Map<string, string>();
  const out: Field[] = [];
  for (const field of structure) {
    const verified = verifyField(field, [document], field.name, unmatched, reasons);
    out.push(verified ?? toModelField(field));
  }
  const notes = unmatched.map((path): FieldNote => {
    const nested = path.includes('.');
    const reason = reasons.get(path) ?? 'it matches nothing';
    return nested
      ? { field: path, outcome: 'dropped', reason: `${reason} (a field inside a list or object is not filled by the model)` }
      : { field: path, outcome: 'model field', reason: `${reason}: the model fills it at retrieval` };
  });
  return { structure: out, unmatched, notes };
}

/** Returns the field with its nested fields verified, or undefined when it extracts nothing from the page. */
function verifyField(field: Field, scopes: Scope[], path: string, unmatched: string[], reasons: Map<string, string>): Field | undefined {
  let found = scopes;
  if (field.selector !== undefined) {
    found = matches(field.selector, scopes);
    if (found.length === 0) {
      unmatched.push(path);
      const where = path.includes('.') ? `inside ${path.slice(0, path.lastIndexOf('.'))}` : 'on the page';
      reasons.set(path, `its selector ${JSON.stringify(field.selector)} matches nothing ${where}`);
      return undefined;
    }
  } else if (!(field.type === 'object' && (field.fields ?? []).some(hasSelectorInside))) {
    // No selector and nothing selectable below: a model field, only meaningful at the top level.
    return undefined;
  }
  if (!field.fields) return field;
  const itemScopes = field.type === 'object' ? found.slice(0, 1) : found;
  const kept: Field[] = [];
  for (const child of field.fields) {
    const verified = verifyField(child, itemScopes, `${path}.${child.name}`, unmatched, reasons);
    if (verified) kept.push(verified);
  }
  if (kept.length === 0) {
    unmatched.push(path);
    reasons.set(path, 'none of its fields matches anything');
    return undefined;
  }
  return { ...field, fields: kept };
}

function hasSelectorInside(field: Field): boolean {
  return field.selector !== undefined || (field.fields ?? []).some(hasSelectorInside);
}

/** A model field: no selectors anywhere below, so the model fills the whole value. */
export function toModelField(field: Field): Field {
  return stripSelectors(field);
}

function stripSelectors(field: Field): Field {
  const { selector: _selector, attribute: _attribute, transform: _transform, ...rest } = field;
  const out: Field = { ...rest };
  if (field.fields) out.fields = field.fields.map(stripSelectors);
  if (field.items) {
    const { attribute: _itemAttribute, transform: _itemTransform, ...items } = field.items;
    out.items = items;
  }
  return out;
}
