/**
 * Numbers as pages write them: "£1,234.50", "1.234,50 €", "$ 12", "1 234,5", "1'234.50", "−3", "12.5k" is
 * not magic (12.5). The first number in the text is taken; currency signs and words around it are ignored.
 *
 * Separator rules, in order:
 * - spaces (incl. no-break and narrow no-break) and apostrophes only group thousands, and only before exactly
 *   three digits; anything else ends the number;
 * - when both `.` and `,` occur, the one that occurs last is the decimal separator;
 * - one kind occurring several times groups thousands ("1,234,567", "1.234.567");
 * - one occurrence followed by exactly three digits, after a non-zero group of 1-3 digits, groups thousands
 *   ("1,234" and "1.234" are 1234; "0.125" and "12.50" are decimals). This is the one ambiguous case; it is
 *   read the way prices are written, which is what pages mostly hold.
 */

const PLAIN_NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
const NUMBER_RUN = /([-+−]?)(\d(?:[\d.,'’\u00A0\u202F\u2009 ]*\d)?)/;
/** "-$0.01", "-US$0.01", "-CHF 5", "− € 3": a minus before a currency sign or code, not inside a word ("Item-5"). */
const NEGATIVE_PREFIX = /(?<![\p{L}\d])[-−]\s*(?:[A-Z]{0,3}\p{Sc}|[A-Z]{3})?\s*$/u;
const GROUPING = /['’\u00A0\u202F\u2009 ]/;

export function parseLocaleNumber(input: string): number | null {
  const text = input.trim();
  if (PLAIN_NUMBER.test(text)) {
    const value = Number(text);
    return Number.isFinite(value) ? value : null;
  }
  const match = NUMBER_RUN.exec(text);
  if (!match) return null;
  const sign = match[1] === '-' || match[1] === '−' || NEGATIVE_PREFIX.test(text.slice(0, match.index)) ? -1 : 1;
  const digits = normaliseSeparators(cutAtBadGrouping(match[2]!));
  if (digits === null) return null;
  const value = Number(digits);
  return Number.isFinite(value) ? sign * value : null;
}

/** Keeps the run up to the first space/apostrophe that is not followed by exactly three digits. */
function cutAtBadGrouping(run: string): string {
  let end = run.length;
  for (let index = 0; index < run.length; index++) {
    if (!GROUPING.test(run[index]!)) continue;
    const rest = run.slice(index + 1);
    const group = /^\d+/.exec(rest)?.[0] ?? '';
    if (group.length !== 3) {
      end = index;
      break;
    }
  }
  return run
    .slice(0, end)
    .replace(new RegExp(GROUPING.source, 'g'), '')
    .replace(/[.,]+$/, '');
}

function normaliseSeparators(run: string): string | null {
  if (run === '') return null;
  const lastDot = run.lastIndexOf('.');
  const lastComma = run.lastIndexOf(',');
  if (lastDot === -1 && lastComma === -1) return run;
  if (lastDot !== -1 && lastComma !== -1) {
    const decimal = lastDot > lastComma ? '.' : ',';
    const grouping = decimal === '.' ? ',' : '.';
    const [whole, fraction] = splitOnce(run.split(grouping).join(''), decimal);
    if (fraction.includes(decimal)) return null;
    return `${whole}.${fraction}`;
  }
  const separator = lastDot !== -1 ? '.' : ',';
  const parts = run.split(separator);
  if (parts.length > 2) return parts.join('');
  const [whole, fraction] = [parts[0]!, parts[1]!];
  const looksGrouped = fraction.length === 3 && whole.length <= 3 && !/^0+$/.test(whole) && whole !== '';
  return looksGrouped ? whole + fraction : `${whole || '0'}.${fraction}`;
}

function splitOnce(text: string, separator: string): [string, string] {
  const index = text.indexOf(separator);
  return [text.slice(0, index) || '0', text.slice(index + 1)];
}

/** A number as the text says it, nothing lost: no leading zeros, no marks, no units (1,379 · 1.234,50 · 12 000). */
export function isCleanNumber(text: string): boolean {
  const value = text.trim().replace(/^[−–]/, '-');
  // Thousands grouped with `,` `.` `'` or spaces, one decimal part with `.` or `,`.
  if (!/^[-+]?(\d{1,3}([,.'\s\u00a0\u202f]\d{3})+|\d+)([.,]\d+)?%?$/.test(value)) return false;
  // `01`, `007`: an identifier or a padded rank, which a number would not keep.
  return !/^[-+]?0\d/.test(value);
}

/** A clean number with at most a currency sign or code around it (`£51.77`, `1.234,50 €`, `USD 12`). */
export function isCleanAmount(text: string): boolean {
  const bare = text
    .trim()
    .replace(/^(?:\p{Sc}|[A-Z]{3}(?![a-z]))\s?/u, '')
    .replace(/\s?(?:\p{Sc}|[A-Z]{3})$/u, '');
  return isCleanNumber(bare);
}
