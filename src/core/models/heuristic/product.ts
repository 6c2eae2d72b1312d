import type { Field } from '../../config/index.js';
import { compileStructure, selectIn, textOf, type Document } from '../../extract/index.js';
import { variantsDisagreeOnStock } from './json-ld.js';
import { pricesMarkedOther } from './other-prices.js';
import type { Proposal } from './types.js';

/**
 * One product per product page. JSON-LD, microdata, RDFa, OpenGraph tags and the page itself may each state
 * the product's facts; a user reads one `product` object with one field per attribute, named as users
 * expect, each from the most trusted source that yields it (the order of Proposal.productSource). Sources are
 * merged after verification, so a source whose selector finds nothing never hides the next one. The page's own
 * fact comes first where the page shows why the markup's is not what a reader reads (`choose`). Without any
 * markup source, the page's own facts stay top-level fields (`price`, `priceText`, …) as the page shows them.
 */

/** The attributes a shop page is read for, in the order they are offered. */
const ATTRIBUTES = [
  'name',
  'price',
  'currency',
  'oldPrice',
  'availability',
  'sku',
  'gtin',
  'brand',
  'rating',
  'reviewCount',
  'image',
  'description',
];
/** Fields only the page states (as shown), which disagree with markup as soon as the page's price is another. */
const PAGE_ONLY = new Set(['priceText', 'currency', 'oldPrice']);

function sourceFields(proposal: Proposal): Field[] {
  return proposal.field.type === 'object' && proposal.field.fields ? proposal.field.fields : [proposal.field];
}

/**
 * What each field extracts from the page: in one extraction, so fields sharing a selector (JSON-LD) read the
 * page once; should one not compile, each is read alone, so one failing never hides another.
 */
function readFields(fields: Array<Field | undefined>, page: Document, pageUrl: string): Array<unknown> {
  try {
    const structure = fields.flatMap((field, index) => (field ? [{ ...field, name: `field${index}` }] : []));
    const { data } = compileStructure({ selector: 'body', structure }).extractFromDocument(page, pageUrl, { sectionOnly: false });
    return fields.map((field, index) => (field ? data[`field${index}`] : undefined));
  } catch {
    return fields.map((field) => readField(field, page, pageUrl));
  }
}

function readField(field: Field | undefined, page: Document, pageUrl: string): unknown {
  if (!field) return undefined;
  try {
    const structure = [{ ...field, name: 'value' }];
    return compileStructure({ selector: 'body', structure }).extractFromDocument(page, pageUrl, { sectionOnly: false }).data.value;
  } catch {
    return undefined;
  }
}

const samePrice = (a: unknown, b: unknown) => typeof a === 'number' && typeof b === 'number' && Math.abs(a - b) < 0.005;

/**
 * Whose price a reader pays when the markup and the page disagree: the page's, when the markup's is one the
 * page shows as another price beside the title (struck out, the regular price, an auction's starting bid)
 * and the page's is not; else the markup's (a converted price beside the real one is not the price).
 */
function pricePrevails(markupPrice: unknown, pagePrice: unknown, page: Document): boolean {
  if (typeof markupPrice !== 'number' || typeof pagePrice !== 'number' || samePrice(markupPrice, pagePrice)) return false;
  const others = pricesMarkedOther(page.children);
  return others.some((other) => samePrice(other, markupPrice)) && !others.some((other) => samePrice(other, pagePrice));
}

/**
 * A code the reader sees beside its label beats a markup `sku` the page never shows (an internal id): a
 * shopper quotes the code on the page. A markup sku the page shows stays.
 */
function skuPrevails(markupSku: unknown, pageSku: unknown, readerText: () => string): boolean {
  if (typeof markupSku !== 'string' || typeof pageSku !== 'string' || markupSku.trim() === '' || pageSku.trim() === '') return false;
  if (markupSku.trim().toLowerCase() === pageSku.trim().toLowerCase()) return false;
  return !readerText().toLowerCase().includes(markupSku.trim().toLowerCase());
}

/** Labels of a barcode number, in the main European languages. */
const BARCODE_LABEL =
  /(isbn(-1[03])?|ean(-?1[23])?|gtin(-?\d+)?|upc|barcode|bar code|code-barres|c[óo]digo de barras|strichcode|codice a barre)\s*:?\s*$/i;

/** The markup's sku is a code the page labels as a barcode (ISBN, EAN): a gtin, not the shop's sku. */
function labelledAsBarcode(code: unknown, readerText: () => string): boolean {
  if (typeof code !== 'string' || !/^\d{8,14}$/.test(code.trim())) return false;
  const text = readerText();
  for (let at = text.indexOf(code.trim()); at >= 0; at = text.indexOf(code.trim(), at + 1))
    if (BARCODE_LABEL.test(text.slice(Math.max(0, at - 30), at))) return true;
  return false;
}

interface Choice {
  /** The page's fields that come before the markup's. */
  preferred: Field[];
  /** The markup's fields, a barcode given as sku renamed gtin. */
  markupFields: Field[];
  /** The page's price, and what it shows beside it, belongs to the product. */
  agrees: boolean;
}

/** Where the page's own facts prevail over the markup's: its price, its code, its stock (see each rule). */
function choose(markupFields: Field[], pageFields: Field[], page: Document, pageUrl: string): Choice {
  const named = (fields: Field[], name: string) => fields.find((field) => field.name === name);
  const [markupPrice, pagePrice, markupSku, pageSku, pageStock] = [
    named(markupFields, 'price'),
    named(pageFields, 'price'),
    named(markupFields, 'sku'),
    named(pageFields, 'sku'),
    named(pageFields, 'availability'),
  ];
  const [markupValue, pageValue, markupCode, pageCode, pageStockValue] = readFields(
    [markupPrice, pagePrice, markupSku, pageSku, pageStock],
    page,
    pageUrl,
  );
  const pageWins = pricePrevails(markupValue, pageValue, page);
  const preferred = pageWins ? pageFields.filter((field) => field.name === 'price' || PAGE_ONLY.has(field.name)) : [];
  let bodyText: string | undefined;
  const readerText = () => (bodyText ??= textOf(selectIn('body', page)[0] ?? page));
  let markup = markupFields;
  if (pageSku && skuPrevails(markupCode, pageCode, readerText)) preferred.push(pageSku);
  else if (markupSku && labelledAsBarcode(markupCode, readerText)) {
    const gtin = named(markupFields, 'gtin') ? [] : [{ ...markupSku, name: 'gtin' }];
    markup = markupFields.flatMap((field) => (field === markupSku ? gtin : [field]));
  }
  // Variants in stock and out of stock in the markup: the page's own words or buy button say what a reader can buy.
  if (pageStock && pageStockValue && variantsDisagreeOnStock(page)) preferred.push(pageStock);
  return { preferred, markupFields: markup, agrees: !markupPrice || pageWins || samePrice(markupValue, pageValue) };
}

export function mergeProductSources(proposals: Proposal[], page: Document, pageUrl: string): Proposal[] {
  const sources = proposals.filter((proposal) => proposal.productSource !== undefined).sort((a, b) => a.productSource! - b.productSource!);
  const markup = sources.filter((proposal) => proposal.kind !== 'heading');
  if (markup.length === 0) return proposals;
  const pageFields = sources.filter((proposal) => proposal.kind === 'heading').map((proposal) => proposal.field);
  const { preferred, markupFields, agrees } = choose(markup.flatMap(sourceFields), pageFields, page, pageUrl);
  const pagePrice = pageFields.find((field) => field.name === 'price');
  const candidates = [...preferred, ...markupFields, ...pageFields.filter((field) => agrees || !PAGE_ONLY.has(field.name))];

  const fields: Field[] = [];
  const taken = new Set<string>();
  const take = (field: Field) => {
    if (taken.has(field.name)) return;
    taken.add(field.name);
    fields.push(field);
  };
  for (const attribute of ATTRIBUTES) {
    const field = candidates.find((candidate) => candidate.name === attribute);
    if (field) take(field);
  }
  // What else the markup states (a condition, a colour, a URL), after the attributes; the page's shown price last.
  for (const field of candidates) if (!ATTRIBUTES.includes(field.name) && field.name !== 'priceText') take(field);
  const shown = candidates.find((field) => field.name === 'priceText');
  if (shown && agrees && pagePrice) take(shown);

  const first = proposals.indexOf(markup[0]!);
  const merged: Proposal = {
    kind: 'jsonld',
    field: { name: 'product', type: 'object', fields },
    score: Math.max(...markup.map((proposal) => proposal.score)),
    hints: `product ${fields.map((field) => field.name).join(' ')}`,
  };
  const rest = proposals.filter((proposal) => !sources.includes(proposal));
  rest.splice(Math.min(first, rest.length), 0, merged);
  return rest;
}
