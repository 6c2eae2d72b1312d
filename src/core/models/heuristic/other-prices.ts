import type { AnyNode } from 'domhandler';
import { allElements, parentElement, parseLocaleNumber, textOf, type Element } from '../../extract/index.js';
import { looksLikePrice } from './naming.js';

/**
 * Prices a product page shows beside its title but marks as not the price to pay now: struck out, called the
 * old or regular price by their class, or labelled as another price ("Was", "RRP", "Starting price",
 * "Estimate", "Startgebot", "Prix de départ"). product.ts uses them to tell which of two disagreeing prices a
 * reader pays: markup that states the regular price or an auction's starting bid is not the current price.
 */

/** How far from the title (in elements, document order) such prices are looked for, as for the main price. */
const AFTER_TITLE = 400;
const BEFORE_TITLE = 40;
const MAX_TEXT = 60;
const STRUCK = new Set(['del', 's', 'strike']);
/**
 * Class, id or itemprop words of a former or reference price (`old-price`, `wasPrice`, `price--regular`), as
 * words: `font-bold` and `sold-out` hold "old" and are none.
 */
const OLD_PRICE = /(^|[^a-z])(old|was|before|regular|original|strike|uvp|compare|list[-_ ]?price|crossed)/i;
export const namesOldPrice = (names: string): boolean => OLD_PRICE.test(names.replace(/([a-z])([A-Z])/g, '$1 $2'));
/**
 * Labels of a price that is not the product's price to pay now: a former, regular or recommended price, an
 * auction's start or estimate, the postage.
 */
const OTHER_PRICE_LABEL =
  /^(was|before|regular( price)?|normal( price)?|list price|rrp|msrp|uvp|statt|antes|avant|prima|starting (price|bid)|start(ing)? at|opening bid|minimum bid|estimate|estimated value|reserve( price)?|startpreis|startgebot|mindestgebot|schätzpreis|prix de départ|mise à prix|estimation|prix conseillé|precio (de salida|inicial|normal|anterior|de lista)|oferta inicial|prezzo (di partenza|iniziale|consigliato)|base d'asta|preço (inicial|normal|anterior)|lance inicial|shipping|postage|delivery|versand(kosten)?|livraison|frais de port|env[íi]o|spedizione|frete|verzendkosten)$/i;
/** Labels of the price to pay: "Price:", "Now", an auction's current bid, in the main European languages. */
const CURRENT_PRICE_LABEL =
  /^(price|our price|sale price|now|current (bid|price)|preis|jetzt|aktuelles gebot|prix|maintenant|ench[èe]re actuelle|precio|ahora|oferta actual|puja actual|prezzo|ora|offerta attuale|pre[çc]o|agora|lance atual|prijs|nu|cena|fiyat|цена)$/i;

const isLabel = (text: string, label: RegExp) => label.test(text.replace(/[\s:.]+$/, '').trim());

/** What stands just before is a label of the kind: an element (`<dt>RRP</dt><dd>€20</dd>`) or text (`Prix : <b>`). */
function labelBefore(element: Element, rawLength: Map<Element, number>, label: RegExp): boolean {
  let sibling = element.prev;
  while (sibling && sibling.type === 'text' && (sibling as unknown as { data: string }).data.trim() === '') sibling = sibling.prev;
  while (sibling && sibling.type !== 'tag' && sibling.type !== 'text') sibling = sibling.prev;
  if (!sibling) return false;
  if (sibling.type === 'text') return isLabel((sibling as unknown as { data: string }).data, label);
  if (rawLength.get(sibling as Element)! > MAX_TEXT * 4) return false;
  const text = textOf(sibling);
  return text.length <= 40 && isLabel(text, label);
}

/** Marked as another price by its element: struck out (itself or an ancestor close by) or named old/regular. */
function markedByElement(element: Element): boolean {
  let current: Element | null = element;
  for (let level = 0; level < 3 && current; level++, current = parentElement(current)) {
    if (STRUCK.has(current.name)) return true;
    const names = `${current.attribs.class ?? ''} ${current.attribs.id ?? ''} ${current.attribs.itemprop ?? ''}`;
    if (namesOldPrice(names)) return true;
  }
  return false;
}

/** The price after a label of the kind in one text ("Starting Price $150"). */
function labelledInText(text: string, label: RegExp): string | null {
  const match = /^([^\d$€£¥₹]{2,30})\s*:?\s*(\S.*)$/u.exec(text);
  return match && isLabel(match[1]!, label) && looksLikePrice(match[2]!) ? match[2]! : null;
}

/** A price element the page marks as another price than the one to pay: by element, its own label or the one before it. */
export function isMarkedOther(element: Element, text: string, rawLength: Map<Element, number>): boolean {
  return labelledInText(text, OTHER_PRICE_LABEL) !== null || markedByElement(element) || labelBefore(element, rawLength, OTHER_PRICE_LABEL);
}

/** A price element labelled as the price to pay ("Price: $20", `<span>Current bid:</span> <span>£85</span>`). */
export function isLabelledCurrent(element: Element, text: string, rawLength: Map<Element, number>): boolean {
  return labelledInText(text, CURRENT_PRICE_LABEL) !== null || labelBefore(element, rawLength, CURRENT_PRICE_LABEL);
}

export function pricesMarkedOther(roots: AnyNode[]): number[] {
  const elements = allElements(roots);
  const titleIndex = elements.findIndex((element) => element.name === 'h1');
  if (titleIndex < 0) return [];
  // Text is read only for elements small enough to hold a labelled price (raw lengths, in one pass).
  const rawLength = rawTextLengths(elements);
  const values: number[] = [];
  const end = Math.min(elements.length, titleIndex + AFTER_TITLE);
  for (let index = Math.max(0, titleIndex - BEFORE_TITLE); index < end; index++) {
    const element = elements[index]!;
    if (rawLength.get(element)! > MAX_TEXT * 4) continue;
    const text = textOf(element);
    if (text.length === 0 || text.length > MAX_TEXT || !/\d/.test(text)) continue;
    const price =
      labelledInText(text, OTHER_PRICE_LABEL) ??
      (looksLikePrice(text) && (markedByElement(element) || labelBefore(element, rawLength, OTHER_PRICE_LABEL)) ? text : null);
    const value = price === null ? null : parseLocaleNumber(price);
    if (value !== null) values.push(value);
  }
  return values;
}

/** Length of the raw text under each element, computed bottom-up over document-ordered elements. */
export function rawTextLengths(elements: Element[]): Map<Element, number> {
  const lengths = new Map<Element, number>();
  for (let i = elements.length - 1; i >= 0; i--) {
    const element = elements[i]!;
    let length = 0;
    for (const child of element.children) {
      if (child.type === 'text') length += child.data.length;
      else length += lengths.get(child as Element) ?? 0;
    }
    lengths.set(element, length);
  }
  return lengths;
}
