import type { Field, ScalarType } from '../../config/index.js';
import { htmlToText, parseLooseJson, rawText, selectIn, type Document } from '../../extract/index.js';
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
  /** Transforms after the json path (availability URLs become their schema.org name). */
  then?: string[];
  /** Text a reader reads: a value holding HTML tags or entities is read through the `plainText` transform. */
  plainText?: boolean;
}

const PRODUCT: PropertySpec[] = [
  { name: 'name', paths: ['name'], type: 'string', plainText: true },
  {
    name: 'price',
    paths: ['offers.price', 'offers.lowPrice', 'offers.priceSpecification.price', 'offers.itemOffered.offers.price'],
    type: 'number',
  },
  { name: 'currency', paths: ['offers.priceCurrency', 'offers.priceSpecification.priceCurrency'], type: 'string' },
  { name: 'availability', paths: ['offers.availability'], type: 'string', then: ['availability'] },
  { name: 'sku', paths: ['sku', 'mpn', 'productID'], type: 'string' },
  { name: 'gtin', paths: ['gtin13', 'gtin', 'gtin12', 'gtin14', 'gtin8', 'isbn'], type: 'string' },
  { name: 'brand', paths: ['brand.name', 'brand', 'manufacturer.name'], type: 'string' },
  { name: 'rating', paths: ['aggregateRating.ratingValue'], type: 'number' },
  { name: 'reviewCount', paths: ['aggregateRating.reviewCount', 'aggregateRating.ratingCount'], type: 'integer' },
  { name: 'image', paths: ['image.url', 'image.contentUrl', 'image'], type: 'url' },
  { name: 'description', paths: ['description'], type: 'string', plainText: true },
];

const ARTICLE: PropertySpec[] = [
  { name: 'headline', paths: ['headline', 'name'], type: 'string' },
  { name: 'author', paths: ['author.name', 'author.0.name', 'author'], type: 'string' },
  { name: 'datePublished', paths: ['datePublished'], type: 'string' },
  { name: 'dateModified', paths: ['dateModified'], type: 'string' },
  { name: 'publisher', paths: ['publisher.name'], type: 'string' },
  { name: 'image', paths: ['image.url', 'image', 'image.0'], type: 'url' },
  { name: 'description', paths: ['description'], type: 'string', plainText: true },
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
  { name: 'description', paths: ['description'], type: 'string', plainText: true },
];

const KNOWN_TYPES: Record<string, PropertySpec[]> = {
  Product: PRODUCT,
  IndividualProduct: PRODUCT,
  ProductModel: PRODUCT,
  ProductGroup: PRODUCT,
  Article: ARTICLE,
  NewsArticle: ARTICLE,
  BlogPosting: ARTICLE,
  Recipe: RECIPE,
};
/** Known type names by their lower-case form: pages write `product` and `schema:Product` too. */
const KNOWN_BY_LOWER = new Map(Object.keys(KNOWN_TYPES).map((name) => [name.toLowerCase(), name]));
/** The schema.org types of a product page's product: one `product` object, whichever of them the page uses. */
export const PRODUCT_TYPES = new Set(['Product', 'IndividualProduct', 'ProductModel', 'ProductGroup']);

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

/**
 * The entity's type as a schema.org name: the last segment of a URL or prefixed name (`schema:Product`,
 * `http://schema.org/Product`), a known type whatever its case (`product`); the first of several, unless a
 * later one is known (`["Thing", "Product"]`).
 */
export function typeOf(value: JsonObject): string | null {
  const raw = value['@type'];
  const types = (Array.isArray(raw) ? raw : [raw]).filter((type): type is string => typeof type === 'string' && type.trim() !== '');
  const names = types.map((type) => type.trim().replace(/^.*[/:#]/, ''));
  const known = names.map((name) => KNOWN_BY_LOWER.get(name.toLowerCase())).find((name) => name !== undefined);
  return known ?? names[0] ?? null;
}

const MAX_ENTITIES = 500;

/** Entities read once per page: the detector and the product merge both ask (each a walk of a 1 MB page). */
const entitiesOfPage = new WeakMap<Document, JsonObject[]>();

/** Top-level entities of every JSON-LD script: the objects themselves, array members, `@graph` members. */
export function jsonLdEntities(context: Pick<DetectContext, 'page'>): JsonObject[] {
  const known = entitiesOfPage.get(context.page);
  if (known) return known;
  const entities: JsonObject[] = [];
  entitiesOfPage.set(context.page, entities);
  for (const script of selectIn(JSON_LD_SELECTOR, context.page)) {
    // Read as the engine reads it (comment and CDATA wrappers, raw newlines in strings).
    const parsed = parseLooseJson(rawText(script));
    const queue: unknown[] = Array.isArray(parsed) ? [...parsed] : [parsed];
    for (let index = 0; index < queue.length && index < MAX_ENTITIES; index++) {
      const item = queue[index];
      if (Array.isArray(item)) queue.push(...item);
      if (!item || typeof item !== 'object' || Array.isArray(item)) continue;
      // `@graph` members, and the page's main entity (`WebPage.mainEntity: {Product}`).
      for (const key of ['@graph', 'mainEntity']) {
        const inner = (item as JsonObject)[key];
        if (inner && typeof inner === 'object') queue.push(inner);
      }
      if (typeOf(item as JsonObject)) entities.push(item as JsonObject);
    }
  }
  return entities;
}

/**
 * The page's products state different stock for their variants (sizes, colours: several offers or several
 * products): the markup then tells nothing certain about the product as a reader sees it.
 */
export function variantsDisagreeOnStock(page: Document): boolean {
  const stock = new Set<string>();
  for (const entity of jsonLdEntities({ page })) {
    if (!PRODUCT_TYPES.has(typeOf(entity) ?? '')) continue;
    const offers = entity.offers;
    for (const offer of Array.isArray(offers) ? offers : [offers]) {
      const availability = offer && typeof offer === 'object' ? (offer as JsonObject).availability : undefined;
      if (typeof availability === 'string') stock.add(availability.replace(/^.*[/#:]/, '').toLowerCase());
    }
  }
  return stock.size > 1;
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

/** Text without HTML tags or character references: JSON-LD keeps them raw, and a reader never sees them. */
function isPlainText(value: unknown): boolean {
  return typeof value !== 'string' || !/<\/?[a-z][^>]*>|&(#\d+|#x[\da-f]+|[a-z]{2,8});/i.test(value);
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
      if (!path || (spec.plainText && !htmlToText(String(valueAtPath(entity, path))))) continue;
      const name = names.take(camelCase(splitWords(spec.name)) || 'value');
      const asText = spec.plainText && !isPlainText(valueAtPath(entity, path)) ? ['plainText'] : [];
      const transform = [`json:${type}.${path}`, ...asText, ...(spec.then ?? [])];
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
      ...(PRODUCT_TYPES.has(type) ? { productSource: 0 } : {}),
    });
  }
  return proposals;
}
