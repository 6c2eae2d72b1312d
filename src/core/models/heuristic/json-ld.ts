import type { Field, ScalarType } from '../../config/index.js';
import { rawText, selectIn } from '../../extract/index.js';
import { camelCase, NameSet, splitWords } from './naming.js';
import type { DetectContext, Proposal } from './types.js';

/**
 * schema.org JSON-LD. Each typed entity becomes an object field whose children read the script with a
 * type-prefixed `json:` path (`json:Product.offers.price`), which the structure engine resolves anywhere in
 * the document, `@graph` included. Known types get the properties users ask for; others their scalars.
 */
export const JSON_LD_SELECTOR = 'script[type="application/ld+json"]';

type JsonObject = Record<string, unknown>;
interface PropertySpec {
  name: string;
  paths: string[];
  type: ScalarType;
  /** A list of scalars (recipeIngredient): an array field whose items are the list's entries. */
  list?: boolean;
}

const PRODUCT: PropertySpec[] = [
  { name: 'name', paths: ['name'], type: 'string' },
  { name: 'price', paths: ['offers.price', 'offers.lowPrice', 'offers.0.price', 'offers.priceSpecification.price'], type: 'number' },
  { name: 'currency', paths: ['offers.priceCurrency', 'offers.0.priceCurrency'], type: 'string' },
  { name: 'availability', paths: ['offers.availability', 'offers.0.availability'], type: 'string' },
  { name: 'sku', paths: ['sku', 'mpn'], type: 'string' },
  { name: 'brand', paths: ['brand.name', 'brand'], type: 'string' },
  { name: 'gtin', paths: ['gtin13', 'gtin', 'gtin12', 'gtin14', 'gtin8'], type: 'string' },
  { name: 'rating', paths: ['aggregateRating.ratingValue'], type: 'number' },
  { name: 'reviewCount', paths: ['aggregateRating.reviewCount', 'aggregateRating.ratingCount'], type: 'integer' },
  { name: 'image', paths: ['image', 'image.0', 'image.url'], type: 'url' },
  { name: 'description', paths: ['description'], type: 'string' },
];

const ARTICLE: PropertySpec[] = [
  { name: 'headline', paths: ['headline', 'name'], type: 'string' },
  { name: 'author', paths: ['author.name', 'author.0.name', 'author'], type: 'string' },
  { name: 'datePublished', paths: ['datePublished'], type: 'string' },
  { name: 'dateModified', paths: ['dateModified'], type: 'string' },
  { name: 'publisher', paths: ['publisher.name'], type: 'string' },
  { name: 'image', paths: ['image.url', 'image', 'image.0'], type: 'url' },
  { name: 'description', paths: ['description'], type: 'string' },
];

const RECIPE: PropertySpec[] = [
  { name: 'name', paths: ['name'], type: 'string' },
  { name: 'author', paths: ['author.name', 'author.0.name', 'author'], type: 'string' },
  { name: 'prepTime', paths: ['prepTime'], type: 'string' },
  { name: 'cookTime', paths: ['cookTime'], type: 'string' },
  { name: 'totalTime', paths: ['totalTime'], type: 'string' },
  { name: 'recipeYield', paths: ['recipeYield', 'recipeYield.0'], type: 'string' },
  { name: 'ingredients', paths: ['recipeIngredient'], type: 'string', list: true },
  { name: 'rating', paths: ['aggregateRating.ratingValue'], type: 'number' },
  { name: 'description', paths: ['description'], type: 'string' },
];

const KNOWN_TYPES: Record<string, PropertySpec[]> = {
  Product: PRODUCT,
  Article: ARTICLE,
  NewsArticle: ARTICLE,
  BlogPosting: ARTICLE,
  Recipe: RECIPE,
};

/** Page furniture: offered only when nothing else is described. */
const FURNITURE_TYPES = new Set([
  'WebSite',
  'WebPage',
  'BreadcrumbList',
  'Organization',
  'SearchAction',
  'ImageObject',
  'SiteNavigationElement',
  'ListItem',
  'ItemList',
]);

export function typeOf(value: JsonObject): string | null {
  const type = value['@type'];
  if (typeof type === 'string') return type;
  if (Array.isArray(type) && typeof type[0] === 'string') return type[0];
  return null;
}

/** Top-level entities of every JSON-LD script: the objects themselves, array members, `@graph` members. */
export function jsonLdEntities(context: DetectContext): JsonObject[] {
  const entities: JsonObject[] = [];
  for (const script of selectIn(JSON_LD_SELECTOR, context.page)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(rawText(script));
    } catch {
      continue;
    }
    const queue: unknown[] = Array.isArray(parsed) ? parsed : [parsed];
    for (const item of queue) {
      if (!item || typeof item !== 'object' || Array.isArray(item)) continue;
      const graph = (item as JsonObject)['@graph'];
      if (Array.isArray(graph)) queue.push(...graph);
      if (typeOf(item as JsonObject)) entities.push(item as JsonObject);
    }
  }
  return entities;
}

export function valueAtPath(root: unknown, path: string): unknown {
  let current = root;
  for (const key of path.split('.')) {
    if (current === null || current === undefined) return undefined;
    if (Array.isArray(current) && !/^\d+$/.test(key)) current = current[0];
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

function isScalar(value: unknown): value is string | number | boolean {
  return (typeof value === 'string' && value.trim().length > 0) || typeof value === 'number' || typeof value === 'boolean';
}

function isScalarList(value: unknown): boolean {
  return Array.isArray(value) && value.length > 0 && value.every(isScalar);
}

function genericSpecs(entity: JsonObject): PropertySpec[] {
  const specs: PropertySpec[] = [];
  for (const [key, value] of Object.entries(entity)) {
    // Keys become json path segments: only plain names (no dots, spaces or @-keywords) can be addressed.
    if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(key)) continue;
    if (isScalar(value)) specs.push({ name: key, paths: [key], type: typeof value === 'number' ? 'number' : 'string' });
    else if (value && typeof value === 'object' && !Array.isArray(value) && isScalar((value as JsonObject).name))
      specs.push({ name: key, paths: [`${key}.name`], type: 'string' });
  }
  return specs.slice(0, 12);
}

export function detectJsonLd(context: DetectContext): Proposal[] {
  const entities = jsonLdEntities(context);
  const hasContent = entities.some((entity) => !FURNITURE_TYPES.has(typeOf(entity) ?? ''));
  const seenTypes = new Set<string>();
  const topNames = new NameSet();
  const proposals: Proposal[] = [];
  for (const entity of entities) {
    const type = typeOf(entity)!;
    if (seenTypes.has(type) || (hasContent && FURNITURE_TYPES.has(type)) || !/^[A-Za-z][A-Za-z0-9]*$/.test(type)) continue;
    seenTypes.add(type);
    const names = new NameSet();
    const fields: Field[] = [];
    for (const spec of KNOWN_TYPES[type] ?? genericSpecs(entity)) {
      const path = spec.paths.find((candidate) => (spec.list ? isScalarList : isScalar)(valueAtPath(entity, candidate)));
      if (!path) continue;
      const name = names.take(camelCase(splitWords(spec.name)) || 'value');
      const transform = [`json:${type}.${path}`];
      fields.push(
        spec.list
          ? { name, type: 'array', selector: JSON_LD_SELECTOR, transform, items: { type: spec.type } }
          : { name, type: spec.type, selector: JSON_LD_SELECTOR, transform },
      );
    }
    if (fields.length === 0) continue;
    const name = topNames.take(camelCase(splitWords(type)) || 'entity');
    const known = type in KNOWN_TYPES;
    proposals.push({
      kind: 'jsonld',
      field: { name, type: 'object', fields },
      score: (known ? 100 : 20) + fields.length,
      hints: `${type} ${fields.map((field) => field.name).join(' ')}`,
    });
  }
  return proposals;
}
