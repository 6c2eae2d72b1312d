import type { Field } from '../../config/index.js';
import { attr, quoteAttributeValue, selectIn, textOf, type Element } from '../../extract/index.js';
import type { DetectContext, Proposal } from './types.js';

/**
 * The product facts a page states in markup other than JSON-LD and microdata: RDFa (`typeof="schema:Product"`
 * with `property="schema:price"`) and OpenGraph product tags (`<meta property="product:price:amount">`). Each
 * is a source for product.ts, which keeps one field per attribute, the most trusted source first.
 */

interface Attribute {
  name: string;
  type: Field['type'];
  transform?: string[];
}

const NUMBER: Pick<Attribute, 'type' | 'transform'> = { type: 'number', transform: ['number'] };
/** schema.org property names (RDFa) and OpenGraph tag names, to the attribute they state. */
const RDFA_PROPERTIES: Record<string, Attribute> = {
  name: { name: 'name', type: 'string' },
  price: { name: 'price', ...NUMBER },
  lowprice: { name: 'price', ...NUMBER },
  pricecurrency: { name: 'currency', type: 'string' },
  availability: { name: 'availability', type: 'string', transform: ['availability'] },
  sku: { name: 'sku', type: 'string' },
  mpn: { name: 'mpn', type: 'string' },
  gtin: { name: 'gtin', type: 'string' },
  gtin8: { name: 'gtin', type: 'string' },
  gtin12: { name: 'gtin', type: 'string' },
  gtin13: { name: 'gtin', type: 'string' },
  gtin14: { name: 'gtin', type: 'string' },
  brand: { name: 'brand', type: 'string' },
  ratingvalue: { name: 'rating', ...NUMBER },
  reviewcount: { name: 'reviewCount', type: 'integer', transform: ['integer'] },
  image: { name: 'image', type: 'url', transform: ['absoluteUrl'] },
  description: { name: 'description', type: 'string' },
};

const OPEN_GRAPH: Array<{ tags: string[]; attribute: Attribute }> = [
  { tags: ['product:price:amount', 'og:price:amount', 'product:sale_price:amount'], attribute: { name: 'price', ...NUMBER } },
  { tags: ['product:price:currency', 'og:price:currency'], attribute: { name: 'currency', type: 'string' } },
  {
    tags: ['product:availability', 'og:availability'],
    attribute: { name: 'availability', type: 'string', transform: ['availability'] },
  },
  { tags: ['product:retailer_item_id', 'product:sku'], attribute: { name: 'sku', type: 'string' } },
  { tags: ['product:ean', 'product:upc', 'product:gtin', 'product:isbn'], attribute: { name: 'gtin', type: 'string' } },
  { tags: ['product:brand', 'og:brand'], attribute: { name: 'brand', type: 'string' } },
];

/** The part of an RDFa name after its prefix or vocabulary URL: `schema:price` → `price`. */
function localName(value: string): string {
  return value
    .trim()
    .split(/\s+/)[0]!
    .replace(/^.*[/:#]/, '');
}

function rdfaFields(product: Element): Field[] {
  const fields: Field[] = [];
  const taken = new Set<string>();
  const scope = `[typeof=${quoteAttributeValue(attr(product, 'typeof') ?? '')}]`;
  for (const element of selectIn('[property]', product)) {
    const property = attr(element, 'property') ?? '';
    const attribute = RDFA_PROPERTIES[localName(property).toLowerCase()];
    if (!attribute || taken.has(attribute.name) || element.attribs.typeof !== undefined) continue;
    const selector = `${scope} [property=${quoteAttributeValue(property)}]`;
    if (selectIn(selector, product)[0] !== element) continue;
    const read =
      element.attribs.content !== undefined ? 'content' : element.name === 'img' ? 'src' : element.name === 'link' ? 'href' : null;
    if (!(read ? attr(element, read) : textOf(element))) continue;
    taken.add(attribute.name);
    fields.push({ ...attribute, selector, ...(read ? { attribute: read } : {}) } as Field);
  }
  return fields;
}

export function detectProductSources(context: DetectContext): Proposal[] {
  const proposals: Proposal[] = [];
  const product = selectIn('[typeof]', context.sectionRoots).find((element) =>
    (attr(element, 'typeof') ?? '').split(/\s+/).some((type) => /^(Individual)?Product(Model|Group)?$/i.test(localName(type))),
  );
  const rdfa = product ? rdfaFields(product) : [];
  if (rdfa.length > 0) proposals.push(source(rdfa, 2));
  const tags: Field[] = [];
  // One walk of the page for every tag: a query per tag walks a 1 MB page a dozen times.
  const stated = new Set(selectIn('meta[property][content]', context.page).map((meta) => meta.attribs.property));
  for (const { tags: names, attribute } of OPEN_GRAPH) {
    const name = names.find((tag) => stated.has(tag));
    if (name) tags.push({ ...attribute, selector: `meta[property=${quoteAttributeValue(name)}]`, attribute: 'content' } as Field);
  }
  if (tags.length > 0) proposals.push(source(tags, 3));
  return proposals;
}

function source(fields: Field[], productSource: number): Proposal {
  return { kind: 'microdata', field: { name: 'product', type: 'object', fields }, score: 100, hints: 'product', productSource };
}
