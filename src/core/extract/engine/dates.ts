/**
 * Dates as pages write them, to ISO 8601. A date without a time becomes `YYYY-MM-DD` (no invented
 * midnight or time zone); a date with a time and a zone becomes a UTC instant (`toISOString`); a date with a
 * time but no zone keeps its wall-clock time without a zone (`YYYY-MM-DDTHH:mm:ss`).
 *
 * Numeric day/month order: `/` is read month-first (US, as `Date.parse` does) unless the first number is
 * over 12; `.` and `-` are read day-first (most of Europe) unless the second number is over 12.
 */

const MONTHS: Record<string, number> = {};
const MONTH_NAMES: string[][] = [
  ['january', 'jan', 'janvier', 'januar', 'enero', 'gennaio', 'janeiro', 'januari'],
  ['february', 'feb', 'février', 'fevrier', 'februar', 'febrero', 'febbraio', 'fevereiro', 'februari'],
  ['march', 'mar', 'mars', 'märz', 'maerz', 'marzo', 'março', 'maart'],
  ['april', 'apr', 'avril', 'abril', 'aprile'],
  ['may', 'mai', 'mayo', 'maggio', 'maio', 'mei'],
  ['june', 'jun', 'juin', 'juni', 'junio', 'giugno', 'junho'],
  ['july', 'jul', 'juillet', 'juli', 'julio', 'luglio', 'julho'],
  ['august', 'aug', 'août', 'aout', 'agosto', 'augustus'],
  ['september', 'sep', 'sept', 'septembre', 'septiembre', 'settembre', 'setembro'],
  ['october', 'oct', 'octobre', 'oktober', 'octubre', 'ottobre', 'outubro', 'okt'],
  ['november', 'nov', 'novembre', 'noviembre', 'novembro'],
  ['december', 'dec', 'décembre', 'decembre', 'dezember', 'diciembre', 'dicembre', 'dezembro', 'dez'],
];
MONTH_NAMES.forEach((names, index) => names.forEach((name) => (MONTHS[name] = index + 1)));

const pad = (value: number, width = 2) => String(value).padStart(width, '0');

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?\s*(Z|[+-]\d{2}:?\d{2})?)?$/i;
const NUMERIC = /(?<![\d])(\d{1,4})([/.-])(\d{1,2})\2(\d{2,4})(?![\d])/;
const DAY_MONTH_YEAR = /(?<![\d])(\d{1,2})(?:st|nd|rd|th)?\.?\s+(?:de\s+)?([\p{L}]+)\.?,?\s+(?:de\s+)?(\d{4})/u;
const MONTH_DAY_YEAR = /([\p{L}]+)\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})/u;
const TIME = /(\d{1,2}):(\d{2})(?::(\d{2}))?\s*([ap]\.?m\.?)?\s*(Z|GMT|UTC|[+-]\d{2}:?\d{2})?/i;

export function parseDateToIso(input: unknown): string | null {
  if (typeof input === 'number') return fromEpoch(input);
  if (typeof input !== 'string') return null;
  const text = input.trim();
  if (text === '') return null;
  if (/^\d{10}(\d{3})?$/.test(text)) return fromEpoch(Number(text));

  const iso = ISO.exec(text);
  if (iso) {
    const [, y, mo, d, h, mi, s, zone] = iso;
    if (!validDate(+y!, +mo!, +d!)) return null;
    if (h === undefined) return `${y}-${mo}-${d}`;
    const local = `${y}-${mo}-${d}T${h}:${mi}:${s ?? '00'}`;
    if (!zone) return local;
    const instant = new Date(`${local}${zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone}`);
    return Number.isNaN(instant.getTime()) ? null : instant.toISOString();
  }

  const date = calendarDate(text);
  if (date) {
    // A recognised shape that is not a real date (31 February) is null, not rolled over as Date.parse would.
    if (date.iso === null) return null;
    const time = TIME.exec(text.slice(date.end));
    if (!time) return date.iso;
    let hours = Number(time[1]);
    const meridiem = time[4]?.toLowerCase().replace(/\./g, '');
    if (meridiem === 'pm' && hours < 12) hours += 12;
    if (meridiem === 'am' && hours === 12) hours = 0;
    if (hours > 23 || Number(time[2]) > 59) return date.iso;
    const local = `${date.iso}T${pad(hours)}:${time[2]}:${time[3] ?? '00'}`;
    const zone = time[5]?.toUpperCase();
    if (!zone) return local;
    const offset =
      zone === 'Z' || zone === 'GMT' || zone === 'UTC' ? 'Z' : zone.length === 5 ? `${zone.slice(0, 3)}:${zone.slice(3)}` : zone;
    const instant = new Date(`${local}${offset}`);
    return Number.isNaN(instant.getTime()) ? local : instant.toISOString();
  }

  // RFC 2822 and other forms the platform understands ("Tue, 22 Nov 2026 10:00:00 GMT").
  const parsed = Date.parse(text);
  return Number.isNaN(parsed) ? null : new Date(parsed).toISOString();
}

/** null: no date shape found; `iso: null`: a date shape that names no real day. */
function calendarDate(text: string): { iso: string | null; end: number } | null {
  const numeric = NUMERIC.exec(text);
  if (numeric) {
    const [whole, a, separator, b, c] = numeric;
    const end = numeric.index + whole.length;
    if (a!.length === 4) return make(+a!, +b!, +c!, end);
    const year = c!.length === 2 ? 2000 + Number(c) : Number(c);
    const [first, second] = [Number(a), Number(b)];
    const monthFirst = separator === '/' ? first <= 12 : second > 12 && first <= 12;
    return monthFirst ? make(year, first, second, end) : make(year, second, first, end);
  }
  const dayMonth = DAY_MONTH_YEAR.exec(text);
  if (dayMonth) {
    const month = MONTHS[dayMonth[2]!.toLowerCase()];
    if (month) return make(Number(dayMonth[3]), month, Number(dayMonth[1]), dayMonth.index + dayMonth[0].length);
  }
  const monthDay = MONTH_DAY_YEAR.exec(text);
  if (monthDay) {
    const month = MONTHS[monthDay[1]!.toLowerCase()];
    if (month) return make(Number(monthDay[3]), month, Number(monthDay[2]), monthDay.index + monthDay[0].length);
  }
  return null;
}

function make(year: number, month: number, day: number, end: number): { iso: string | null; end: number } {
  if (!validDate(year, month, day)) return { iso: null, end };
  return { iso: `${pad(year, 4)}-${pad(month)}-${pad(day)}`, end };
}

function validDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function fromEpoch(value: number): string | null {
  if (!Number.isFinite(value)) return null;
  // Ten digits are seconds, thirteen are milliseconds: both appear in embedded page state.
  const ms = Math.abs(value) < 1e11 ? value * 1000 : value;
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}
