import type { ValueKind } from '../state/index.js';

/**
 * What a value looks like, for the health baseline: a number, a price, a URL, a date, an identifier, a short
 * label or free text. Only the first four are strict enough to say a field's data changed when they stop
 * (a number column that no longer parses, a price that became words, a URL that is not one); labels,
 * identifiers and text shade into each other on healthy pages and are recorded, never judged.
 */
export const STRICT_KINDS: readonly ValueKind[] = ['number', 'price', 'url', 'date'];

const MONTHS = '(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|janv|févr|mars|avr|mai|juin|juil|août|sept|oct|nov|déc)[a-zéû]*\\.?';
const DATE_PATTERNS = [
  /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2})?(\.\d+)?(Z|[+-]\d{2}:?\d{2})?)?$/,
  /^\d{1,2}[./-]\d{1,2}[./-]\d{2,4}$/,
  /^\d{4}年\d{1,2}月\d{1,2}日$/,
  new RegExp(`^(\\w+,?\\s+)?${MONTHS}\\s+\\d{1,2}(st|nd|rd|th)?,?(\\s+\\d{4})?$`, 'i'),
  new RegExp(`^(\\w+,?\\s+)?\\d{1,2}(st|nd|rd|th)?\\.?\\s+${MONTHS}(\\s+\\d{4})?$`, 'i'),
];
const CURRENCY = /[$€£¥₹₩₽]|\b(EUR|USD|GBP|JPY|CHF|SEK|NOK|DKK|PLN|CAD|AUD|kr|zł|Fr)\b/i;
const NUMBER = /^[-+−]?[\d\s.,'’]*\d[\d\s.,'’]*%?$/;
/** Longer strings are text whatever they start with; classifying them costs nothing either way. */
const MAX_CLASSIFIED = 200;

export function valueKind(value: unknown): ValueKind | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? 'number' : undefined;
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value !== 'string') return undefined;
  const text = value.replace(/\s+/g, ' ').trim();
  if (text === '') return undefined;
  if (text.length > MAX_CLASSIFIED) return 'text';
  if (/^(https?:)?\/\/[^\s]+$/i.test(text) || /^\/[^\s]*$/.test(text)) return 'url';
  // Dates, numbers, prices and identifiers all hold a digit: labels without one skip their seven patterns.
  if (/\d/.test(text)) {
    if (DATE_PATTERNS.some((pattern) => pattern.test(text))) return 'date';
    if (NUMBER.test(text)) return 'number';
    if (text.length <= 40 && CURRENCY.test(text) && /^[^a-z]*([a-z]{1,3}[^a-z]*)?$/i.test(text)) return 'price';
    if (!/\s/.test(text) && text.length <= 40 && /[a-z]/i.test(text)) return 'identifier';
  }
  return text.length <= 40 && text.split(' ').length <= 5 ? 'label' : 'text';
}

/** Whether a value of `kind` still fits a field whose values were `expected` (a price read as a bare number does). */
export function fitsKind(expected: ValueKind, kind: ValueKind | undefined): boolean {
  if (kind === expected) return true;
  if (expected === 'number') return kind === 'price';
  if (expected === 'price') return kind === 'number';
  return false;
}

/** A strict kind is a field's when at least this share of its good values had it. */
export const STRICT_KIND_SHARE = 0.9;

/** The strict kind (number, price, URL, date) at least STRICT_KIND_SHARE of these kind shares fit, if any. */
export function strictKindOf(kinds: Partial<Record<ValueKind, number>> | undefined): ValueKind | undefined {
  if (!kinds || typeof kinds !== 'object') return undefined;
  const total = Object.values(kinds).reduce<number>((sum, share) => sum + (Number.isFinite(share) ? share! : 0), 0);
  if (total <= 0) return undefined;
  for (const kind of STRICT_KINDS) {
    const share = STRICT_KINDS.filter((other) => fitsKind(kind, other)).reduce(
      (sum, other) => sum + (Object.hasOwn(kinds, other) && Number.isFinite(kinds[other]) ? kinds[other]! : 0),
      0,
    );
    if (share / total >= STRICT_KIND_SHARE) return kind;
  }
  return undefined;
}

/** How a finding names a field's values: "numbers became text such as …". */
export const KIND_WORDS: Record<ValueKind, string> = {
  number: 'numbers',
  price: 'prices',
  url: 'URLs',
  date: 'dates',
  identifier: 'identifiers',
  label: 'labels',
  text: 'text',
  boolean: 'true/false values',
};
