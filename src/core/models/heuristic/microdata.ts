import type { Field, ScalarType } from '../../config/index.js';
import { attr, isInside, parentElement, quoteAttributeValue, selectIn, textOf, type Element } from '../../extract/index.js';
import { camelCase, NameSet, pluralize, splitWords } from './naming.js';
import { labelCutTransform } from './product-facts.js';
import type { DetectContext, Proposal } from './types.js';

/**
 * schema.org microdata (`itemscope itemtype itemprop`). One item of a type becomes an object, several an
 * array of objects; properties of nested items that are themselves properties (offers, aggregateRating,
 * brand, author) are flattened into the names users expect (`price`, `rating`, `brand`).
 */

const NESTED_NAMES: Record<string, Record<string, string>> = {
  offers: { price: 'price', lowPrice: 'price', priceCurrency: 'currency', availability: 'availability', itemCondition: 'condition' },
  aggregateRating: { ratingValue: 'rating', reviewCount: 'reviewCount', ratingCount: 'reviewCount' },
  brand: { name: 'brand' },
  author: { name: 'author' },
  address: { streetAddress: 'street', addressLocality: 'city', postalCode: 'postalCode', addressCountry: 'country' },
  location: { name: 'location' },
};

/** Properties of the item itself named as users expect: one `gtin`, whichever length the page writes. */
const OWN_NAMES: Record<string, string> = {
  gtin8: 'gtin',
  gtin12: 'gtin',
  gtin13: 'gtin',
  gtin14: 'gtin',
  ratingValue: 'rating',
  priceCurrency: 'currency',
  lowPrice: 'price',
};

const NUMBER_PROPS = new Set(['price', 'lowPrice', 'highPrice', 'ratingValue']);
const INTEGER_PROPS = new Set(['reviewCount', 'ratingCount']);

/** The value microdata gives an element: attributes for tags that carry them, text otherwise. */
export function microdataValue(element: Element): { value: string; attribute?: string } {
  const tag = element.name;
  const fromAttribute = (name: string) => ({ value: attr(element, name) ?? '', attribute: name });
  if (element.attribs.content !== undefined) return fromAttribute('content');
  if (tag === 'meta') return fromAttribute('content');
  if (tag === 'link' || (tag === 'a' && !textOf(element))) return fromAttribute('href');
  if (tag === 'img' || tag === 'source') return fromAttribute('src');
  if (tag === 'time' && element.attribs.datetime) return fromAttribute('datetime');
  if ((tag === 'data' || tag === 'meter') && element.attribs.value) return fromAttribute('value');
  return { value: textOf(element) };
}

function nearestScope(element: Element): Element | null {
  for (let current = parentElement(element); current; current = parentElement(current))
    if (current.attribs.itemscope !== undefined) return current;
  return null;
}

function itemTypeName(element: Element): string | null {
  const type = (element.attribs.itemtype ?? '').trim().split(/\s+/)[0] ?? '';
  const match = /schema\.org\/([A-Za-z][A-Za-z0-9]*)$/.exec(type);
  return match ? match[1]! : null;
}

function scalarFieldFor(prop: string, value: string, attribute: string | undefined): Pick<Field, 'type' | 'transform'> {
  // Availability is a schema.org name whichever element states it (`<link href="…/InStock">` included).
  if (prop === 'availability') return { type: 'string', transform: ['availability'] };
  let type: ScalarType = 'string';
  if (NUMBER_PROPS.has(prop)) type = 'number';
  else if (INTEGER_PROPS.has(prop)) type = 'integer';
  else if (attribute === 'href' || attribute === 'src' || /^(url|image)$/.test(prop)) type = 'url';
  const transform = type === 'number' && !/^[\d.]+$/.test(value) ? ['number'] : type === 'url' ? ['absoluteUrl'] : undefined;
  return transform ? { type, transform } : { type };
}

/**
 * The itemprop of the property item holding an element's scope, when that scope lies inside `item` through
 * property items only (`Product > offers > offers`), at most four deep; else null.
 */
function propertyItemOf(scope: Element | null, item: Element): string | null {
  if (!scope || !scope.attribs.itemprop) return null;
  let current: Element | null = scope;
  for (let depth = 0; current && current !== item && depth < 4; depth++) {
    if (current.attribs.itemprop === undefined) return null;
    current = nearestScope(current);
  }
  return current === item ? scope.attribs.itemprop.trim().split(/\s+/)[0]! : null;
}

/** Fields of one item, with selectors relative to the item element. */
function itemFields(item: Element): Field[] {
  const names = new NameSet();
  const taken = new Set<string>();
  const fields: Field[] = [];
  for (const element of selectIn('[itemprop]', item)) {
    if (element === item) continue;
    const scope = nearestScope(element);
    const prop = (element.attribs.itemprop ?? '').trim().split(/\s+/)[0] ?? '';
    // Items that are properties (offers, brand) are read through their own properties.
    if (!/^[A-Za-z][A-Za-z0-9]*$/.test(prop) || element.attribs.itemscope !== undefined) continue;
    let selector: string;
    let name: string;
    if (scope === item) {
      selector = `[itemprop=${quoteAttributeValue(prop)}]`;
      // The first match inside the item must be this very property, not a namesake in a nested item
      // (the brand's `name` before the product's): then exclude what sits inside nested property items.
      if (selectIn(selector, item).find((match) => match !== item) !== element) selector = `${selector}:not([itemscope][itemprop] *)`;
      if (selectIn(selector, item).find((match) => match !== item) !== element) continue;
      name = OWN_NAMES[prop] ?? prop;
    } else {
      // A property of an item nested in the item (offers, an offer inside the offers, aggregateRating): read
      // from the innermost property item, named as users expect (`price`, not `offersPrice`).
      const parentProp = propertyItemOf(scope, item);
      if (!parentProp) continue;
      selector = `[itemprop=${quoteAttributeValue(parentProp)}] [itemprop=${quoteAttributeValue(prop)}]`;
      if (selectIn(selector, item)[0] !== element) continue;
      name = NESTED_NAMES[parentProp]?.[prop] ?? (NESTED_NAMES[parentProp] ? prop : `${parentProp} ${prop}`);
    }
    const { value, attribute } = microdataValue(element);
    const wanted = camelCase(splitWords(name));
    // One field per property: the first occurrence (the offer's price, not a second offer's) names it.
    if (!value || taken.has(wanted)) continue;
    taken.add(wanted);
    const field: Field = { name: names.take(wanted), ...scalarFieldFor(prop, value, attribute), selector };
    if (attribute) field.attribute = attribute;
    // A brand or code in text with its label ("Ver mais artigos da Marca: Panasonic"): the label is cut off.
    const cut = attribute ? null : labelCutTransform(wanted, value);
    if (cut) field.transform = cut;
    fields.push(field);
  }
  return fields;
}

export function detectMicrodata(context: DetectContext): Proposal[] {
  const topItems = selectIn('[itemscope][itemtype]', context.sectionRoots).filter((element) => {
    const scope = nearestScope(element);
    return !scope || element.attribs.itemprop === undefined;
  });
  const byType = new Map<string, Element[]>();
  for (const item of topItems) {
    const type = itemTypeName(item);
    if (!type || ['WebPage', 'WebSite', 'BreadcrumbList', 'SiteNavigationElement', 'WPHeader', 'WPFooter'].includes(type)) continue;
    // An item nested in another of the same type is part of it, not a sibling.
    const list = byType.get(type) ?? [];
    if (list.some((other) => isInside(item, other))) continue;
    list.push(item);
    byType.set(type, list);
  }
  const topNames = new NameSet();
  const proposals: Proposal[] = [];
  for (const [type, items] of byType) {
    const itemSelector = `[itemtype$=${quoteAttributeValue(`schema.org/${type}`)}]`;
    const baseName = camelCase(splitWords(type));
    if (items.length === 1) {
      const fields = itemFields(items[0]!).map((field) => ({ ...field, selector: `${itemSelector} ${field.selector}` }));
      if (fields.length === 0) continue;
      proposals.push({
        kind: 'microdata',
        field: { name: topNames.take(baseName), type: 'object', fields },
        score: 100 + fields.length,
        hints: `${type} ${fields.map((f) => f.name).join(' ')}`,
        // A product, or the offer a product page makes without marking the product itself.
        ...(/^((Individual)?Product(Model|Group)?|Offer|AggregateOffer)$/.test(type) ? { productSource: 1 } : {}),
      });
      continue;
    }
    // Fields found in at least half of the items, in the order of the first item that has most of them.
    const counts = new Map<string, { field: Field; count: number }>();
    for (const item of items)
      for (const field of itemFields(item)) {
        const key = `${field.selector}|${field.attribute ?? ''}`;
        const entry = counts.get(key) ?? { field, count: 0 };
        entry.count++;
        counts.set(key, entry);
      }
    const fields = [...counts.values()].filter((entry) => entry.count * 2 >= items.length).map((entry) => entry.field);
    if (fields.length === 0) continue;
    proposals.push({
      kind: 'microdata',
      field: { name: topNames.take(pluralize(baseName)), type: 'array', selector: itemSelector, fields },
      score: 100 + items.length * fields.length,
      hints: `${type} ${fields.map((f) => f.name).join(' ')}`,
      itemElements: items,
    });
  }
  return proposals;
}
