import type { Field } from '../../config/index.js';
import { compileStructure, type Document } from '../../extract/index.js';
import type { Proposal } from './types.js';

/**
 * One product per product page. JSON-LD, microdata, RDFa, OpenGraph tags and the page itself may each state
 * the product's facts; a user reads one `product` object with one field per attribute, named as users
 * expect, each from the most trusted source that yields it (the order of Proposal.productSource). Sources are
 * merged after verification, so a source whose selector finds nothing never hides the next one. Without any
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

/** The page's price agrees with the markup's: then what the page shows beside it (old price, text) belongs to it. */
function pageAgrees(markupPrice: Field | undefined, pagePrice: Field | undefined, page: Document, pageUrl: string): boolean {
  if (!markupPrice || !pagePrice) return false;
  try {
    const structure = [
      { ...markupPrice, name: 'a' },
      { ...pagePrice, name: 'b' },
    ];
    const { data } = compileStructure({ selector: 'body', structure }).extractFromDocument(page, pageUrl, { sectionOnly: false });
    return typeof data.a === 'number' && typeof data.b === 'number' && Math.abs(data.a - data.b) < 0.005;
  } catch {
    return false;
  }
}

export function mergeProductSources(proposals: Proposal[], page: Document, pageUrl: string): Proposal[] {
  const sources = proposals.filter((proposal) => proposal.productSource !== undefined).sort((a, b) => a.productSource! - b.productSource!);
  const markup = sources.filter((proposal) => proposal.kind !== 'heading');
  if (markup.length === 0) return proposals;
  const pageFields = sources.filter((proposal) => proposal.kind === 'heading').map((proposal) => proposal.field);
  const markupFields = markup.flatMap(sourceFields);
  const markupPrice = markupFields.find((field) => field.name === 'price');
  const pagePrice = pageFields.find((field) => field.name === 'price');
  const agrees = !markupPrice || pageAgrees(markupPrice, pagePrice, page, pageUrl);
  const candidates = [...markupFields, ...pageFields.filter((field) => agrees || !PAGE_ONLY.has(field.name))];

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
