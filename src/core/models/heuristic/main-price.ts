import { allElements, isInside, selectIn, textOf, type Element } from './dom.js';
import { looksLikePrice } from './naming.js';
import { uniqueSelector } from './selectors.js';
import type { DetectContext, Proposal } from './types.js';

/**
 * The price of a single-item page (a product page without schema.org data): an element whose class, id or
 * itemprop says "price" and whose text is one. A listing has many such elements; there the repeated-items
 * detector reads them, so this proposes nothing when more than a few are found.
 */
const MAX_PRICES_ON_A_DETAIL_PAGE = 3;

export function detectMainPrice(context: DetectContext): Proposal[] {
  const named: Element[] = [];
  for (const element of allElements(context.sectionRoots)) {
    const names = `${element.attribs.class ?? ''} ${element.attribs.id ?? ''} ${element.attribs.itemprop ?? ''}`;
    if (!/price|preis|prix|precio|prezzo/i.test(names) || /old|was|before|regular|strike|uvp|compare/i.test(names)) continue;
    named.push(element);
    // A listing: stop counting (and never compare thousands of prices with each other).
    if (named.length > MAX_PRICES_ON_A_DETAIL_PAGE * 4) return [];
  }
  // Three prices dressed alike are a list's prices (events, cards), read by the repeated-items detector.
  const dresses = new Map<string, number>();
  for (const element of named) dresses.set(element.attribs.class ?? '', (dresses.get(element.attribs.class ?? '') ?? 0) + 1);
  if ([...dresses.values()].some((count) => count >= 3)) return [];
  const struckOut = selectIn('del, s, strike', context.sectionRoots);
  const prices = named.filter((element) => {
    const text = textOf(element);
    // Struck-out prices, and elements holding one, are what it used to cost.
    return text.length <= 30 && looksLikePrice(text) && !struckOut.some((old) => old === element || isInside(element, old) || isInside(old, element));
  });
  // Nested matches (`.price > .price-amount`) are one price: keep the innermost.
  const innermost = prices.filter((element) => !prices.some((other) => other !== element && isInside(other, element)));
  if (innermost.length === 0 || innermost.length > MAX_PRICES_ON_A_DETAIL_PAGE) return [];
  const selector = uniqueSelector(innermost[0]!, context.sectionRoots);
  return [{ kind: 'heading', field: { name: 'price', type: 'number', selector, transform: ['number'] }, score: 1, hints: 'price' }];
}
