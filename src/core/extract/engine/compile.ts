import type { Field, ScalarType } from '../../config/index.js';
import { PagejsonError } from '../../shared/index.js';
import {
  compileSelector,
  documentBaseUrl,
  parseHtml,
  rawText,
  sectionRoots,
  visibleText,
  type AnyNode,
  type CompiledSelector,
  type Document,
  type Element,
} from './dom.js';
import { parseLooseJson } from './json-path.js';
import { applyTransforms, coerceToType, compileTransform, type CompiledTransform, type TransformContext } from './transforms.js';

/**
 * A structure compiled once per config revision: every selector, regex and json path parsed up front, so an
 * extraction is one walk over the field tree doing only queries and value conversions.
 */

export interface Extraction {
  data: Record<string, unknown>;
  /** Every field is null or [] (an object counts as empty when all its fields are). */
  empty: boolean;
  /** Dotted paths of required fields that came out empty. */
  missingRequired: string[];
}

export interface ModelField {
  /** Dotted path of the field (`summary`, `details.summary`; `books.summary` for a field of array items). */
  path: string;
  field: Field;
  /** The field sits inside the items of an array: it has one value per item, not one per page. */
  inArray: boolean;
}

export interface CompiledStructure {
  extract(html: string, finalUrl: string): Extraction;
  /**
   * `sectionOnly`: top-level fields are read in the section alone, without the whole-page fallback (generation
   * checks with it that a proposal for a narrowed section really comes from that section).
   */
  extractFromDocument(doc: Document, finalUrl: string, options?: { sectionOnly?: boolean }): Extraction;
  /** Recomputes `empty` and `missingRequired` for data changed after extraction (model fields filled in). */
  assess(data: Record<string, unknown>): Omit<Extraction, 'data'>;
  modelFields: ModelField[];
}

interface ScalarSpec {
  type: ScalarType;
  attribute: string | undefined;
  /**
   * With a json transform anywhere in the list (`regex:` may first cut `{…}` out of `window.__STATE__ = …;`)
   * the raw text is read: collapsing whitespace would change string values inside the JSON.
   */
  readsRawText: boolean;
  transforms: CompiledTransform[];
}

type FieldPlan =
  | { kind: 'model'; name: string; path: string; required: boolean; isArray: boolean }
  | { kind: 'scalar'; name: string; path: string; required: boolean; selector: CompiledSelector; spec: ScalarSpec }
  | { kind: 'object'; name: string; path: string; required: boolean; selector: CompiledSelector | null; fields: FieldPlan[] }
  | { kind: 'objects'; name: string; path: string; required: boolean; selector: CompiledSelector; fields: FieldPlan[] }
  | { kind: 'scalars'; name: string; path: string; required: boolean; selector: CompiledSelector; spec: ScalarSpec };

interface ExtractionContext extends TransformContext {
  doc: Document;
  /**
   * Matches remembered in the page-level scopes (the section roots, the whole page) for one extraction: an
   * object's fields share their selector (every JSON-LD field reads `script[type="application/ld+json"]`, which
   * is in <head>, so each would walk the whole body finding nothing before it looks in the page). Item scopes
   * are not remembered: each is read once.
   */
  pageMatches: Map<AnyNode[], { first: Map<CompiledSelector, Element | null>; all: Map<CompiledSelector, Element[]> }>;
}

export function compileStructure(input: { selector?: string | undefined; structure: Field[] }): CompiledStructure {
  const sectionSelector = input.selector?.trim() || 'body';
  compileSelectorAt(sectionSelector, '$.selector');
  const plans = planFields(input.structure, '', '$.structure');
  // Model fields and the assessment are the outline's: one walk decides them for both.
  const outline = outlineStructure(input.structure);

  const extractFromDocument = (doc: Document, finalUrl: string, options: { sectionOnly?: boolean } = {}): Extraction => {
    const roots = sectionRoots(doc, sectionSelector);
    // Top-level fields look in the section first, then in the whole page: page-level facts (JSON-LD and
    // meta tags in <head>) are wanted whatever section the config narrows to.
    const scopes = options.sectionOnly ? [roots] : [roots, [doc]];
    const context = createContext(doc, finalUrl, scopes);
    const data = extractFields(plans, scopes, context);
    return { data, ...outline.assess(data) };
  };

  return {
    extract: (html, finalUrl) => extractFromDocument(parseHtml(html), finalUrl),
    extractFromDocument,
    assess: outline.assess,
    modelFields: outline.modelFields,
  };
}

/**
 * How a field is read, decided in one place for the compiled plan and for the outline: an object with fields
 * is read field by field; a field without a selector is the model's (an object without fields too, which
 * nothing can read from the page); an array reads its items' objects or texts; anything else is one value.
 */
function kindOf(field: Field): FieldPlan['kind'] {
  if (field.type === 'object' && field.fields && field.fields.length > 0) return 'object';
  if (field.selector === undefined || field.type === 'object') return 'model';
  if (field.type === 'array') return field.fields && field.fields.length > 0 ? 'objects' : 'scalars';
  return 'scalar';
}

function planFields(fields: Field[], prefix: string, at: string): FieldPlan[] {
  return fields.map((field, index): FieldPlan => {
    const path = prefix ? `${prefix}.${field.name}` : field.name;
    const where = `${at}[${index}]`;
    const base = { name: field.name, path, required: field.required === true };
    const kind = kindOf(field);
    const selector = field.selector === undefined ? null : compileSelectorAt(field.selector, `${where}.selector`);
    if (kind === 'object') return { ...base, kind, selector, fields: planFields(field.fields!, path, `${where}.fields`) };
    // (A null selector is always a model field; the test is there for the types below.)
    if (kind === 'model' || selector === null) return { ...base, kind: 'model', isArray: field.type === 'array' };
    if (kind === 'objects') return { ...base, kind, selector, fields: planFields(field.fields!, path, `${where}.fields`) };
    if (kind === 'scalars') {
      // An array without items is an array of texts.
      const items = field.items ?? { type: 'string' as const };
      return {
        ...base,
        kind,
        selector,
        spec: scalarSpec(items.type, items.attribute, [...(field.transform ?? []), ...(items.transform ?? [])], `${where}.items`),
      };
    }
    return { ...base, kind: 'scalar', selector, spec: scalarSpec(field.type as ScalarType, field.attribute, field.transform ?? [], where) };
  });
}

/** What `assess` reads of a plan: the compiled plan has it, and so has the outline. */
interface OutlinePlan {
  kind: FieldPlan['kind'];
  name: string;
  path: string;
  required: boolean;
  fields?: OutlinePlan[];
}

/**
 * What the daemon's main thread needs of a structure: its model fields, and `assess` for data the model filled
 * in. It extracts nothing (the extraction threads do), so it compiles no selector, regex or json path: compiled,
 * 1,000 configs' structures held a few MB of the main heap for nothing.
 */
export interface StructureOutline {
  modelFields: ModelField[];
  assess(data: Record<string, unknown>): Omit<Extraction, 'data'>;
}

export function outlineStructure(structure: Field[]): StructureOutline {
  const modelFields: ModelField[] = [];
  const outline = (fields: Field[], prefix: string, inArray: boolean): OutlinePlan[] =>
    fields.map((field) => {
      const path = prefix ? `${prefix}.${field.name}` : field.name;
      const kind = kindOf(field);
      // The model fills the fields without a selector (an object without fields but with one stays null).
      if (kind === 'model' && field.selector === undefined) modelFields.push({ path, field, inArray });
      const plan: OutlinePlan = { kind, name: field.name, path, required: field.required === true };
      if (kind === 'object' || kind === 'objects') plan.fields = outline(field.fields!, path, inArray || kind === 'objects');
      return plan;
    });
  const plans = outline(structure, '', false);
  return { modelFields, assess: (data) => assess(plans, data) };
}

function scalarSpec(type: ScalarType, attribute: string | undefined, transforms: string[], at: string): ScalarSpec {
  const compiled = transforms.map((transform, index) => {
    try {
      return compileTransform(transform);
    } catch (error) {
      throw new PagejsonError(
        'CONFIG_INVALID',
        `${at}.transform[${index}]: transform "${transform}" is invalid: ${(error as Error).message}`,
        {
          context: { path: `${at}.transform[${index}]`, transform },
          hint: 'regex transforms need exactly one capture group; json paths are dotted names',
        },
      );
    }
  });
  return {
    type,
    attribute: attribute?.toLowerCase(),
    readsRawText: transforms.some((transform) => transform.startsWith('json:')),
    transforms: compiled,
  };
}

function compileSelectorAt(selector: string, at: string): CompiledSelector {
  try {
    return compileSelector(selector);
  } catch (error) {
    throw new PagejsonError('CONFIG_INVALID', `${at}: CSS selector "${selector}" does not parse: ${(error as Error).message}`, {
      context: { path: at, selector },
      hint: 'fix the selector; `pagejson edit` tries it on the page',
    });
  }
}

function createContext(doc: Document, finalUrl: string, pageScopes: AnyNode[][]): ExtractionContext {
  let baseUrl: string | undefined;
  const parsedJson = new Map<string, unknown>();
  return {
    doc,
    pageMatches: new Map(pageScopes.map((scope) => [scope, { first: new Map(), all: new Map() }])),
    baseUrl: () => (baseUrl ??= documentBaseUrl(doc, finalUrl)),
    parseJson(text) {
      if (!parsedJson.has(text)) parsedJson.set(text, parseLooseJson(text));
      return parsedJson.get(text);
    },
  };
}

/** `scopes` are tried in order until one yields a value: [section roots] or [section roots, whole page]. */
function extractFields(plans: FieldPlan[], scopes: AnyNode[][], context: ExtractionContext): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const plan of plans) setKey(record, plan.name, extractField(plan, scopes, context));
  return record;
}

function extractField(plan: FieldPlan, scopes: AnyNode[][], context: ExtractionContext): unknown {
  switch (plan.kind) {
    case 'model':
      // Filled by the config's model after extraction; until then empty, in the shape the schema allows.
      return plan.isArray ? [] : null;
    case 'scalar':
      return firstScalar(plan.selector, plan.spec, scopes, context);
    case 'object': {
      if (plan.selector === null) return extractFields(plan.fields, scopes, context);
      const scope = firstMatch(plan.selector, scopes, context);
      return scope === null ? null : extractFields(plan.fields, [[scope]], context);
    }
    case 'objects': {
      const items: Record<string, unknown>[] = [];
      for (const element of allMatches(plan.selector, scopes)) {
        const item = extractFields(plan.fields, [[element]], context);
        if (keepItem(plan.fields, item)) items.push(item);
      }
      return items;
    }
    case 'scalars': {
      const values: unknown[] = [];
      for (const element of allMatches(plan.selector, scopes)) {
        const value = applyTransforms(readRaw(element, plan.spec), plan.spec.transforms, context);
        // A json transform may yield a list (JSON-LD `image: [...]`): its entries are the items.
        for (const entry of Array.isArray(value) ? value : [value]) {
          const coerced = coerceToType(entry, plan.spec.type, context);
          if (coerced !== null) values.push(coerced);
        }
      }
      return values;
    }
  }
}

function firstIn(selector: CompiledSelector, scope: AnyNode[], context: ExtractionContext): Element | null {
  const memo = context.pageMatches.get(scope)?.first;
  if (!memo) return selector.selectFirst(scope);
  let found = memo.get(selector);
  if (found === undefined) memo.set(selector, (found = selector.selectFirst(scope)));
  return found;
}

function allIn(selector: CompiledSelector, scope: AnyNode[], context: ExtractionContext): Element[] {
  const memo = context.pageMatches.get(scope)?.all;
  if (!memo) return selector.select(scope);
  let found = memo.get(selector);
  if (found === undefined) memo.set(selector, (found = selector.select(scope)));
  return found;
}

function firstScalar(selector: CompiledSelector, spec: ScalarSpec, scopes: AnyNode[][], context: ExtractionContext): unknown {
  for (const scope of scopes) {
    const first = firstIn(selector, scope, context);
    if (first === null) continue;
    const value = readScalar(first, spec, context);
    if (value !== null) return value;
    // The first match was empty (an empty price cell, a JSON-LD block of another type): try the others.
    for (const element of allIn(selector, scope, context)) {
      if (element === first) continue;
      const other = readScalar(element, spec, context);
      if (other !== null) return other;
    }
  }
  return null;
}

function firstMatch(selector: CompiledSelector, scopes: AnyNode[][], context: ExtractionContext): Element | null {
  for (const scope of scopes) {
    const match = firstIn(selector, scope, context);
    if (match !== null) return match;
  }
  return null;
}

function allMatches(selector: CompiledSelector, scopes: AnyNode[][]): Element[] {
  for (const scope of scopes) {
    const matches = selector.select(scope);
    if (matches.length > 0) return matches;
  }
  return [];
}

function readRaw(element: Element, spec: ScalarSpec): string | null {
  if (spec.attribute !== undefined) return element.attribs[spec.attribute] ?? null;
  return spec.readsRawText ? rawText(element) : visibleText(element);
}

function readScalar(element: Element, spec: ScalarSpec, context: ExtractionContext): unknown {
  const value = applyTransforms(readRaw(element, spec), spec.transforms, context);
  return coerceToType(value, spec.type, context);
}

/**
 * Items of an array are dropped when they carry nothing (every selector field empty: a header row, an ad
 * slot) or miss a required field: inside an array, `required` says what makes an item an item.
 */
function keepItem(plans: FieldPlan[], item: Record<string, unknown>): boolean {
  const selectorPlans = plans.filter((plan) => plan.kind !== 'model');
  if (selectorPlans.length > 0 && selectorPlans.every((plan) => isEmptyValue(item[plan.name]))) return false;
  const missing: string[] = [];
  collectMissing(plans, item, missing, true);
  return missing.length === 0;
}

function assess(plans: OutlinePlan[], data: Record<string, unknown>): Omit<Extraction, 'data'> {
  const missingRequired: string[] = [];
  collectMissing(plans, data, missingRequired, false);
  return { empty: plans.every((plan) => isEmptyValue(data[plan.name])), missingRequired };
}

function collectMissing(plans: OutlinePlan[], record: Record<string, unknown>, missing: string[], skipModelFields: boolean): void {
  for (const plan of plans) {
    const value = record[plan.name];
    if (plan.required && isEmptyValue(value) && !(skipModelFields && plan.kind === 'model')) missing.push(plan.path);
    else if (plan.kind === 'object' && plan.fields && isPlainObject(value)) collectMissing(plan.fields, value, missing, skipModelFields);
  }
}

export function isEmptyValue(value: unknown): boolean {
  if (value === null || value === undefined || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  if (isPlainObject(value)) return Object.values(value).every(isEmptyValue);
  return false;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Field names may be `__proto__`; a plain assignment would set the prototype instead of a key. */
function setKey(record: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(record, key, { value, enumerable: true, writable: true, configurable: true });
  else record[key] = value;
}
