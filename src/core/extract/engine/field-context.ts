import type { ApiConfig, Field } from '../../config/index.js';
import { compileSelector, sectionRoots, visibleText, type AnyNode, type Document, type Element } from './dom.js';

/**
 * Where a field's selector is evaluated, as retrieval evaluates it: top-level fields inside the section,
 * fields of an array inside each of its items, fields of an object inside the object's element. The edit
 * screen counts a new selector's matches there (not on the whole page), and `validate --live` checks each
 * field of a config there.
 */
export function fieldContexts(config: Pick<ApiConfig, 'selector' | 'structure'>, doc: Document, parentPath: readonly string[]): AnyNode[] {
  let contexts: AnyNode[] = sectionRoots(doc, config.selector);
  let fields: Field[] = config.structure;
  for (const name of parentPath) {
    const field = fields.find((candidate) => candidate.name === name);
    if (!field) return [];
    if (field.selector !== undefined) {
      const selector = compileSelector(field.selector);
      contexts = field.type === 'array' ? selector.select(contexts) : firstOf(selector.selectFirst(contexts));
    }
    fields = field.fields ?? [];
  }
  return contexts;
}

const firstOf = (element: Element | null): AnyNode[] => (element ? [element] : []);

export interface FieldMatches {
  /** Places the selector was tried in (1 for a top-level field, one per item for a field of an array). */
  contexts: number;
  /** Of those, how many it matched something in. */
  matchedContexts: number;
  /** The elements a field would read: the first match in each context (all matches for a list). */
  elements: Element[];
  /** The first few values, as text or as the attribute. */
  values: string[];
  /** Attributes the matched elements carry, most common first, with how many carry each. */
  attributes: Array<{ name: string; count: number }>;
}

export function fieldMatches(
  contexts: readonly AnyNode[],
  selector: string,
  options: { attribute?: string; all?: boolean } = {},
): FieldMatches {
  const compiled = compileSelector(selector);
  const elements: Element[] = [];
  let matchedContexts = 0;
  for (const context of contexts) {
    const first = options.all ? null : compiled.selectFirst(context);
    const found: Element[] = options.all ? compiled.select(context) : first ? [first] : [];
    if (found.length > 0) matchedContexts += 1;
    elements.push(...found);
  }
  const attribute = options.attribute?.toLowerCase();
  const values: string[] = [];
  for (const element of elements) {
    if (values.length >= 3) break;
    const value = attribute === undefined ? visibleText(element) : (element.attribs[attribute] ?? '').trim();
    if (value !== '') values.push(value.length > 80 ? `${value.slice(0, 77)}…` : value);
  }
  const counts = new Map<string, number>();
  for (const element of elements) for (const name of Object.keys(element.attribs)) counts.set(name, (counts.get(name) ?? 0) + 1);
  const attributes = [...counts.entries()]
    .map(([name, count]) => ({ name, count }))
    .sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
  return { contexts: contexts.length, matchedContexts, elements, values, attributes };
}
