/**
 * What a value is, read from the value alone: a price, a date, a rating, a count, a code. Names fields that
 * neither markup nor a label names, and tells a column of prices from a column of text.
 */

// Currency symbols, and ISO codes and local abbreviations standing apart from letters (`EUR110.00`, `Rs 22,300`).
export const CURRENCY =
  /[$€£¥₹₩₽¢₺₴₱฿₫₦₨₪₡₲₵₸]|円|元|(?<![\p{L}])(тг|руб|грн|лв)\.?(?![\p{L}])|(?<![A-Za-z])(USD|EUR|GBP|JPY|CHF|CAD|AUD|NZD|SEK|NOK|DKK|PLN|CZK|HUF|RON|INR|PKR|BRL|MXN|ARS|CLP|COP|PEN|ZAR|TRY|AED|SAR|CNY|RMB|HKD|SGD|MYR|IDR|THB|VND|PHP|KRW|RUB|UAH|ILS|EGP|NGN|KES|Rs\.?|Rp|RM|zł|Kč|kr|lei|Ft|R\$|S\/)(?![A-Za-z])/u;
const NUMBER = /\d[\d.,\s\u00a0\u202f']*\d|\d/;

export function looksLikePrice(text: string): boolean {
  if (text.length > 40) return false;
  // Ranges ("€80k – €95k") and abbreviations are text to a reader, not one number.
  if (/\d\s*[kKmM]\b|\d\s*[–—-]\s*\D{0,3}\d/.test(text)) return false;
  return CURRENCY.test(text) && NUMBER.test(text);
}

export function looksLikeNumber(text: string): boolean {
  return /^[-+]?\d[\d.,\s\u00a0\u202f']*%?$/.test(text.trim()) && text.trim().length <= 20;
}

export function looksLikeDate(text: string): boolean {
  if (text.length > 40) return false;
  return (
    /\b\d{4}-\d{2}-\d{2}\b/.test(text) ||
    /\b\d{1,2}[./]\d{1,2}[./]\d{2,4}\b/.test(text) ||
    /\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2}(,? \d{4})?\b/i.test(text) ||
    /\b\d{1,2}\.? (jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|januar|februar|märz|mai|juni|juli|okt|dez)[a-z]*\.?( \d{4})?\b/i.test(
      text,
    ) ||
    /\d{4}年\d{1,2}月\d{1,2}日/.test(text) ||
    /\b\d+ (minutes?|hours?|days?|weeks?|months?) ago\b/i.test(text)
  );
}

export function looksLikeRating(text: string): boolean {
  return /★|☆|\b\d(\.\d)? ?(\/ ?5|out of 5|stars?)\b/i.test(text) && text.length < 40;
}

/**
 * A name from what every value of a field is, when neither markup nor a label names it: `(Limited)` is a
 * note, `-20%` a discount, `12:30` a time, `GBR` a code, `3.2 km` a distance, `1,204` a number.
 */
export function nameFromValues(values: string[]): string | null {
  const all = (pattern: RegExp): boolean => values.length > 0 && values.every((value) => pattern.test(value.trim()));
  if (all(/^\(\d[\d.,\s]*\)$/)) return 'count';
  if (all(/^\d[\d.,\s]*\s*(reviews?|ratings?|votes?|comments?|bewertungen|avis)$/i)) return 'reviewCount';
  if (all(/^\(.+\)$/)) return 'note';
  if (all(/^-\s?\d+([.,]\d+)?\s?%/)) return 'discount';
  if (all(/^[+-]?\d+([.,]\d+)?\s?%$/)) return 'percent';
  if (all(/^\d{1,2}:\d{2}(:\d{2})?(\s?[ap]\.?m\.?)?$/i)) return 'time';
  if (all(/^\d+([.,]\d+)?\s?(km|mi|miles|m)$/i)) return 'distance';
  if (all(/^[A-Z][A-Z0-9]{1,4}$/)) return 'code';
  if (all(/^[-+]?\d[\d.,\s\u00a0]*\+?$/)) return 'number';
  return null;
}

/** A name from what the value looks like, when markup said nothing useful. */
export function nameFromContent(text: string): string | null {
  if (looksLikePrice(text)) return 'price';
  if (looksLikeRating(text)) return 'rating';
  if (looksLikeDate(text)) return 'date';
  return null;
}
