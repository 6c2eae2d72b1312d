import type { Field } from '../../config/index.js';
import {
  elementChildren,
  isInside,
  isUnreadElement,
  ownText,
  parentElement,
  selectIn,
  stableClasses,
  textOf,
  uniqueSelector,
  type Element,
} from '../../extract/index.js';
import { CURRENCY, looksLikePrice } from './naming.js';
import { isLabelledCurrent, isMarkedOther, namesOldPrice, rawTextLengths } from './other-prices.js';
import { productFacts } from './product-facts.js';
import type { DetectContext, Proposal } from './types.js';

/**
 * The price of a single-item page without schema.org data, found where a shopper looks for it: near the
 * product's title (the first `<h1>`) and its buy button, not in the related products, not a per-unit or
 * instalment price, not struck out. Offered as `price` (the number), `priceText` (as the page shows it, with
 * its currency and formatting: `$24.990` is 24,990 pesos to a reader, whatever a parser guesses), `currency`
 * when the text names one, and `oldPrice` when a struck-out price stands beside it. On a listing every price
 * sits in a repeated region and this proposes nothing: the repeated-items detector reads those.
 */
const MAX_TEXT = 30;
/** Raw text of a card among look-alike priced siblings at most (a related product, another offer). */
const MAX_CARD_TEXT = 4000;
/** How far after the title (in elements, document order) the main price may sit; before it, a tenth of that. */
const AFTER_TITLE = 400;
const BEFORE_TITLE = 40;
const NAMED_PRICE = /price|preis|prix|precio|prezzo|preco|cena|fiyat/i;
// Per unit, per month, instalments, shipping: prices of something other than the product.
const NOT_THE_PRICE =
  /\/\s*(kg|g|l|ml|m|m2|m²|unit|ea|pc|mo|month|mes|mois|monat)\b|\bper\b|\bpro\b|\bx\s*\d|\d\s*x\b|cuotas?|mensualidad|monthly|\/mo\b|installment|instalment|versand|shipping|envío|livraison|ab\s|from\s|dès\s|desde\s/i;
const BUY =
  /add to (cart|bag|basket)|buy|kaufen|warenkorb|comprar|carrito|acheter|panier|aggiungi|carrello|in winkelwagen|koszyk|sepete|купить|в корзину|カートに入れる|加入购物车|加入購物車|장바구니 ?담기|바로 ?구매|구매하기|u ko[šs]aricu|do ko[šs][íi]k|kos[áa]rba|[îi]n co[șşs]/i;

function isStruck(element: Element, struck: Element[]): boolean {
  return struck.some((old) => old === element || isInside(element, old) || isInside(old, element));
}

/**
 * Inside a region of three or more look-alike siblings holding prices (related products, other offers): not
 * this page's price. Sibling signatures are counted once per parent (a listing has thousands of prices).
 */
function createRegionCheck(rawLength: Map<Element, number>): (element: Element) => boolean {
  const pricedSiblings = new Map<Element, Map<string, number>>();
  const signature = (element: Element) => `${element.name}.${stableClasses(element)[0] ?? ''}`;
  const countsOf = (parent: Element): Map<string, number> => {
    let counts = pricedSiblings.get(parent);
    if (!counts) {
      counts = new Map();
      for (const sibling of elementChildren(parent)) {
        // A card holding a price is small; a sibling as long as a data table is no card (and its text is costly).
        if (rawLength.get(sibling)! > MAX_CARD_TEXT) continue;
        const text = textOf(sibling);
        if (/\d/.test(text) && CURRENCY.test(text)) counts.set(signature(sibling), (counts.get(signature(sibling)) ?? 0) + 1);
      }
      pricedSiblings.set(parent, counts);
    }
    return counts;
  };
  return (element) => {
    let current: Element | null = element;
    for (let level = 0; level < 8 && current; level++) {
      const parent = parentElement(current);
      if (!parent) return false;
      if ((countsOf(parent).get(signature(current)) ?? 0) >= 3) return true;
      current = parent;
    }
    return false;
  };
}

interface Candidate {
  element: Element;
  index: number;
  score: number;
}

/**
 * `productPage`: the page states a product in its markup (JSON-LD, microdata…); then its facts on the page
 * (SKU, brand, availability) are read even when no price is found beside the title.
 */
export function detectMainPrice(context: DetectContext, options: { productPage?: boolean } = {}): Proposal[] {
  const elements = context.sectionElements;
  const rawLength = rawTextLengths(elements);
  const inRepeatedRegion = createRegionCheck(rawLength);
  const titleIndex = elements.findIndex((element) => element.name === 'h1');
  const struck = selectIn('del, s, strike', context.sectionRoots);
  const buttons = elements
    .map((element, index) => ({ element, index }))
    .filter(
      ({ element }) =>
        (['button', 'a', 'input'].includes(element.name) &&
          BUY.test(`${element.attribs.value ?? ''} ${element.attribs.class ?? ''} ${textOf(element)}`)) ||
        // Buttons drawn with other elements (`<div role="button">`, `<span class="btn">В корзину</span>`): by their words.
        ((element.attribs.role === 'button' || ['span', 'div', 'label'].includes(element.name)) &&
          ownText(element).length <= 40 &&
          BUY.test(ownText(element))),
    );
  const candidates = priceCandidates(elements, titleIndex, { struck, buttons, inRepeatedRegion, rawLength });
  if (candidates.length === 0 && !options.productPage) return [];
  const fields: Field[] = [];
  const main = candidates.sort((a, b) => b.score - a.score || a.index - b.index)[0];
  if (main) {
    const selector = uniqueSelector(main.element, context.sectionRoots);
    fields.push({ name: 'price', type: 'number', selector, transform: ['number'] }, { name: 'priceText', type: 'string', selector });
    // The currency as an ISO code, when the price names one (`EUR 14,43`); a sign alone ($) says too little.
    const code = ISO_CODE.exec(textOf(main.element))?.[1];
    if (code) fields.push({ name: 'currency', type: 'string', selector, transform: [`regex:(?:^|[^A-Za-z])(${code})(?:[^A-Za-z]|$)`] });
    const old =
      struck.find((element) => Math.abs(elements.indexOf(element) - main.index) <= 15 && looksLikePrice(textOf(element))) ??
      namedOld(elements, main);
    if (old) fields.push({ name: 'oldPrice', type: 'number', selector: uniqueSelector(old, context.sectionRoots), transform: ['number'] });
  }
  const buyButton = buttons.find(({ index }) => index > titleIndex - BEFORE_TITLE && index < titleIndex + AFTER_TITLE)?.element ?? null;
  fields.push(...productFacts({ elements, titleIndex, context, inRepeatedRegion, buyButton }));
  return fields.map((field) => ({ kind: 'heading', field, score: 1, hints: `price ${field.name}`, productSource: PAGE_SOURCE }));
}

/** A price beside the main one that its class, id or itemprop calls old or regular (`original-price`), not struck out. */
function namedOld(elements: Element[], main: Candidate): Element | undefined {
  return elements.slice(Math.max(0, main.index - 15), main.index + 16).find((element) => {
    const names = `${element.attribs.class ?? ''} ${element.attribs.id ?? ''} ${element.attribs.itemprop ?? ''}`;
    if (!namesOldPrice(names) || isInside(main.element, element) || isInside(element, main.element)) return false;
    const text = textOf(element);
    return text.length <= MAX_TEXT && looksLikePrice(text);
  });
}

/** Product facts read from the page itself: the least trusted source of product.ts. */
export const PAGE_SOURCE = 4;
const ISO_CODE =
  /(?:^|[^A-Za-z])(USD|EUR|GBP|JPY|CHF|CAD|AUD|NZD|SEK|NOK|DKK|PLN|CZK|HUF|RON|INR|PKR|BRL|MXN|ARS|CLP|COP|PEN|ZAR|TRY|AED|SAR|CNY|HKD|SGD|MYR|IDR|THB|VND|PHP|KRW|RUB|UAH|ILS|EGP|NGN|KES)(?:[^A-Za-z]|$)/;

/** Hidden from readers (`aria-hidden`, a drawn copy beside the screen-reader text): not the price a reader gets. */
function isUnread(element: Element): boolean {
  for (let current: Element | null = element; current; current = parentElement(current)) if (isUnreadElement(current)) return true;
  return false;
}

interface Around {
  struck: Element[];
  buttons: Array<{ element: Element; index: number }>;
  inRepeatedRegion: (element: Element) => boolean;
  rawLength: Map<Element, number>;
}

/** Prices that may be the product's: innermost priced elements near the title, not struck out, not per unit. */
function priceCandidates(elements: Element[], titleIndex: number, { struck, buttons, inRepeatedRegion, rawLength }: Around): Candidate[] {
  // Text is read only for elements small enough to hold a price (raw text lengths, bottom-up, in one pass),
  // and with a title only near it (a little past the window, for the descendants of its last elements).
  const [from, to] = titleIndex >= 0 ? [Math.max(0, titleIndex - BEFORE_TITLE), titleIndex + AFTER_TITLE + 200] : [0, elements.length];
  const priced = elements
    .slice(from, to)
    .map((element, offset) => ({ element, index: from + offset }))
    .filter(({ element }) => rawLength.get(element)! <= MAX_TEXT * 8)
    .map(({ element, index }) => ({ element, index, text: textOf(element) }))
    .filter(({ text }) => text.length <= MAX_TEXT && looksLikePrice(text));
  // The innermost element holding the price text (`.price > .amount`), by itself a price.
  const holdsPricedElement = new Set<Element>();
  for (const { element } of priced)
    for (let parent = parentElement(element); parent && !holdsPricedElement.has(parent); parent = parentElement(parent))
      holdsPricedElement.add(parent);
  const candidates: Candidate[] = [];
  for (const { element, index, text } of priced.filter(({ element }) => !holdsPricedElement.has(element))) {
    if (NOT_THE_PRICE.test(text)) continue;
    const names = `${element.attribs.class ?? ''} ${element.attribs.id ?? ''} ${element.attribs.itemprop ?? ''} ${parentElement(element)?.attribs.class ?? ''}`;
    if (namesOldPrice(names)) continue;
    const named = NAMED_PRICE.test(names);
    let score = named ? 2 : 1;
    if (titleIndex >= 0) {
      const distance = index - titleIndex;
      if (distance > AFTER_TITLE || distance < -BEFORE_TITLE) continue;
      score += distance >= 0 ? 1 - distance / AFTER_TITLE : 0.5 - -distance / BEFORE_TITLE / 2;
    } else if (!named) continue;
    if (isStruck(element, struck) || inRepeatedRegion(element) || isUnread(element)) continue;
    // "Was $30", "RRP £49.99", `<dt>Startgebot</dt><dd>90 €</dd>`: a price, but not the one to pay.
    if (isMarkedOther(element, text, rawLength)) continue;
    const nearestButton = Math.min(...buttons.map((button) => Math.abs(button.index - index)), Infinity);
    if (nearestButton <= 60) score += 0.5;
    if (isLabelledCurrent(element, text, rawLength)) score += 1;
    candidates.push({ element, index, score });
  }
  return candidates;
}
