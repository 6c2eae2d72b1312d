import type { Field } from '../../config/index.js';
import { compileStructure, type Document } from '../../extract/index.js';
import type { Proposal } from './types.js';

/**
 * Every proposed field is re-extracted by the structure engine, exactly as retrieval will run it, and fields
 * that yield nothing are dropped: a selector that does not reproduce its value is never offered.
 */

/**
 * A template's unfilled placeholder (`$metabrand`, `{{ brand }}`, `${sku}`, `[[price]]`) is what the page
 * failed to say, not a value; a name is required inside, so text such as `[[]]` a page really shows stays.
 */
const PLACEHOLDER =
  /^\s*(\$[A-Za-z_][\w.]*|\$\{\s*[A-Za-z_][\w.]*\s*\}|\{\{\s*[A-Za-z_][\w.]*\s*\}\}|\[\[\s*[A-Za-z_][\w.]*\s*\]\]|%[A-Za-z_]+%)\s*$/;

function isEmpty(value: unknown): boolean {
  if (value === null || value === undefined || value === '') return true;
  if (typeof value === 'string' && PLACEHOLDER.test(value)) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') return Object.values(value as Record<string, unknown>).every(isEmpty);
  return typeof value === 'number' && Number.isNaN(value);
}

/**
 * The field trimmed to what extracted something, or null when nothing did. `everyColumn`: a table's columns
 * are kept whenever a row fills them (a sparse `Notes` column is still the table's).
 */
function prune(field: Field, value: unknown, everyColumn = false): Field | null {
  if (isEmpty(value)) return null;
  if (field.type === 'object' && field.fields) {
    const record = value as Record<string, unknown>;
    const fields = field.fields.map((child) => prune(child, record[child.name])).filter((child): child is Field => child !== null);
    return fields.length > 0 ? { ...field, fields } : null;
  }
  if (field.type === 'array' && field.fields) {
    const items = value as Array<Record<string, unknown>>;
    // A field of the items must be there in a third of them at least: rarer ones are noise, not a column.
    const share = everyColumn ? 0 : 1 / 3;
    const fields = field.fields.filter((child) => {
      const filled = items.filter((item) => !isEmpty(item[child.name])).length;
      return filled > 0 && filled >= items.length * share;
    });
    return fields.length > 0 ? { ...field, fields } : null;
  }
  return field;
}

/** A section the user narrowed to (anything but the whole body): proposals must come from inside it. */
export function isNarrowed(selector: string): boolean {
  return !['', 'body', 'html', ':root'].includes(selector.trim().toLowerCase());
}

export function verifyProposals(proposals: Proposal[], page: Document, pageUrl: string, selector: string): Proposal[] {
  const verified: Proposal[] = [];
  const sectionOnly = isNarrowed(selector);
  for (const proposal of proposals) {
    try {
      const { data } = compileStructure({ selector, structure: [proposal.field] }).extractFromDocument(page, pageUrl, { sectionOnly });
      const field = prune(proposal.field, data[proposal.field.name], proposal.kind === 'table');
      if (field) verified.push({ ...proposal, field });
    } catch {
      // A selector the engine cannot compile is simply not offered.
    }
  }
  return verified;
}
