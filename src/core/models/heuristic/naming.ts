/**
 * Field names. A name should be what a user would type: `price`, `title`, `location`, not `priceColor` or
 * `col3`. Names come, in order of trust, from itemprop, labels, class names (cleaned of layout words) and
 * the content itself; they are camelCased to fit FIELD_NAME_PATTERN and made unique within their level.
 */

/** Words in class names that say how a thing looks or where it sits, never what it is. */
const NOISE_WORDS = new Set([
  'item',
  'items',
  'card',
  'cards',
  'col',
  'cell',
  'row',
  'text',
  'txt',
  'wrapper',
  'wrap',
  'inner',
  'outer',
  'container',
  'content',
  'box',
  'block',
  'el',
  'elem',
  'element',
  'component',
  'comp',
  'main',
  'body',
  'small',
  'large',
  'big',
  'bold',
  'color',
  'colour',
  'muted',
  'primary',
  'secondary',
  'light',
  'dark',
  'left',
  'right',
  'top',
  'bottom',
  'lg',
  'md',
  'sm',
  'xs',
  'xl',
  'mt',
  'mb',
  'ml',
  'mr',
  'pt',
  'pb',
  'px',
  'py',
  'p',
  'm',
  'd',
  'flex',
  'grid',
  'clearfix',
  'pull',
  'fa',
  'icon',
  'ui',
  'u',
  'c',
  'is',
  'has',
  'js',
  'the',
  'a',
  'of',
  'meta',
  'info',
  'details',
  'detail',
  'data',
  'field',
  'value',
  'span',
  'div',
  'strong',
  'em',
  'b',
  'i',
  'h',
  'w',
  'g',
  'pod',
  'tile',
  'entry',
  'list',
  'listing',
  'result',
  'results',
  'product',
  'products',
  'post',
  'line',
  'label',
  'first',
  'last',
  'inline',
  'display',
  'font',
  'weight',
  'size',
  'normal',
  'underline',
  'link',
  'style',
  'spacing',
  'mini',
  'base',
  'plus',
  'none',
  'section',
  'alt',
  'clamp',
  'instructions',
  'align',
  'aligns',
  'scroll',
  'scrolls',
  'slick',
  'swiper',
  'slide',
  'slider',
  'carousel',
  'visually',
  'hidden',
  'mojo',
  'mojos',
  'horizontal',
  'vertical',
  'responsive',
]);

/** Words that, wherever they appear, name the field outright (synonyms folded to one name). */
const KNOWN_NAMES: Array<[RegExp, string]> = [
  [/^(price|prices|cost|amount|preis|kaufpreis|miete)$/, 'price'],
  [/^(title|headline|heading|name|titel)$/, 'title'],
  [/^(date|time|datetime|posted|published|pubdate|datum)$/, 'date'],
  [/^(rating|stars|score|bewertung)$/, 'rating'],
  [/^(author|byline|by|user|username|poster)$/, 'author'],
  [/^(location|city|place|loc|ort|venue)$/, 'location'],
  [/^(company|employer|organisation|organization|firm)$/, 'company'],
  [/^(salary|pay|wage|gehalt)$/, 'salary'],
  [/^(description|desc|summary|excerpt|snippet|abstract|teaser|intro|beschreibung)$/, 'description'],
  [/^(address|addr|adresse)$/, 'address'],
  [/^(availability|stock|instock|availability)$/, 'availability'],
  [/^(brand|maker|manufacturer|marke)$/, 'brand'],
  [/^(category|categories|tag|tags|genre|kategorie)$/, 'category'],
  [/^(reviews|review|comments|replies)$/, 'reviews'],
  [/^(image|img|photo|picture|thumbnail|thumb|bild)$/, 'image'],
  [/^(url|link|href|permalink)$/, 'url'],
  [/^(beds|bedrooms|bed)$/, 'bedrooms'],
  [/^(baths|bathrooms|bath)$/, 'bathrooms'],
  [/^(area|sqft|surface|flaeche)$/, 'area'],
];

/** Whether a word is one of the field names the model knows (or a synonym of one). */
export function isKnownFieldWord(word: string): boolean {
  return KNOWN_NAMES.some(([pattern]) => pattern.test(word));
}

export function splitWords(raw: string): string[] {
  return raw
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9\u00c0-\u024f]+/)
    .filter((word) => word.length > 0);
}

export function camelCase(words: string[]): string {
  const ascii = words.map((word) => word.normalize('NFD').replace(/[^a-z0-9]/g, '')).filter((word) => word.length > 0);
  const joined = ascii.map((word, index) => (index === 0 ? word : word[0]!.toUpperCase() + word.slice(1))).join('');
  const safe = /^[A-Za-z_$]/.test(joined) ? joined : joined.length > 0 ? `f${joined}` : '';
  return safe.slice(0, 40);
}

/** A name from free text (a label, a header cell, a class): known synonyms first, then camelCase. */
export function nameFromText(raw: string, options: { keepNoise?: boolean } = {}): string | null {
  const words = splitWords(raw);
  for (const word of words) for (const [pattern, name] of KNOWN_NAMES) if (pattern.test(word)) return name;
  const meaningful = options.keepNoise ? words : words.filter((word) => !NOISE_WORDS.has(word) && !/^\d+$/.test(word));
  const name = camelCase(meaningful.slice(0, 4));
  // Two letters (`bb`, `tx`) name nothing a reader recognises.
  return name.length > 2 ? name : null;
}

/** Utility-first CSS (Tailwind, Bootstrap helpers) says how a thing looks: never a name. */
const UTILITY_CLASS =
  /^([a-z0-9]+:)*(m|p|[mp][trblxy]|w|h|min|max|text|font|bg|border|rounded|shadow|flex|grid|gap|space|items|justify|object|aspect|inset|absolute|relative|group|tracking|leading|opacity|z|order|overflow|col|row|d|float|align|fw|fs|lh|ms|me|ps|pe|sr|line|truncate|uppercase|lowercase|capitalize|italic|underline|hover|focus|sm|md|lg|xl|xxl|block|inline|hidden|visible|static|fixed|sticky|top|bottom|left|right|start|end|self|place|content|list|divide|ring|transition|duration|ease|cursor|select|pointer|whitespace|break)(-|$)/;

export function isUtilityClass(name: string): boolean {
  return UTILITY_CLASS.test(name);
}

/** A name from class names: the most specific meaningful one (the last class usually is). */
export function nameFromClasses(classes: string[]): string | null {
  for (const cls of [...classes].reverse().filter((name) => !isUtilityClass(name))) {
    // CSS modules: `ProductCard_name__9yTq2` names `name`; BEM: `story-card__headline--large` names `headline`.
    const moduleName = /^[A-Za-z][A-Za-z0-9]*_([A-Za-z][A-Za-z0-9-]*)__[A-Za-z0-9_-]{4,10}$/.exec(cls)?.[1];
    if (moduleName) {
      const name = nameFromText(moduleName);
      if (name) return name;
      continue;
    }
    const element = cls.includes('__') ? cls.split('__').pop()!.split('--')[0]! : cls;
    const name = nameFromText(element) ?? nameFromText(cls);
    if (name && isReadableName(name)) return name;
  }
  return null;
}

/** Consonant clusters English words start with; others (`mf`, `gtk`, `rz`) are abbreviations or hashes. */
const ONSETS = new Set(
  'bl br ch cl cr dr dw fl fr gl gr gn kn kl ph pl pr ps sc sh sk sl sm sn sp st sw th tr tw wh wr sch scr shr sph spl spr str squ thr chr phr'.split(
    ' ',
  ),
);
/** Consonant clusters English words end with (`-nds`, `-cks`, `-ght`); others (`-bf`, `-kb`) are not words. */
const CODAS =
  /^(|[b-df-hj-np-tv-xz]|ck|ct|ft|ld|lf|lk|lm|lp|lt|lth|mp|nd|ng|nk|nt|pt|rb|rc|rd|rf|rg|rk|rl|rm|rn|rp|rt|rst|rld|sk|sp|ss|st|th|dth|pth|fth|xth|ch|sh|ll|ff|gh|ght|nth|rth|ngth|tch|nch|rch|lch|xt|mb|mn|wn|wl|wk|wd|ws|ks)s?$/;

/**
 * A word a reader recognises as a word: it has a vowel, starts and ends the way English words do and has no
 * run of four consonants. `mfes`, `rzds`, `ekabf`, `gtkis` are class-name shorthand that names nothing.
 */
export function isReadableWord(word: string): boolean {
  const lower = word.toLowerCase();
  if (!/^[a-z]+$/.test(lower)) return /^[a-z]*\d*$/.test(lower) === false;
  if (lower.length <= 2 || !/[aeiouy]/.test(lower) || /[b-df-hj-np-tv-xz]{5}/.test(lower)) return false;
  // `y` is a vowel at the end (company) and a consonant at the start (year).
  const onset = /^[b-df-hj-np-tv-z]*/.exec(lower)![0];
  const coda = /[b-df-hj-np-tv-xz]*$/.exec(lower)![0];
  return (onset.length <= 1 || ONSETS.has(onset)) && CODAS.test(coda);
}

/** Every word of a camelCase name is readable. */
export function isReadableName(name: string): boolean {
  return splitWords(name).every((word) => /^\d+$/.test(word) || isReadableWord(word));
}

export function pluralize(name: string): string {
  if (/(s|x|z|ch|sh)$/.test(name)) return name;
  if (/[^aeiou]y$/.test(name)) return `${name.slice(0, -1)}ies`;
  return `${name}s`;
}

/** Makes names unique within one level of the structure: `title`, `title2`, … */
export class NameSet {
  private readonly used = new Set<string>();

  take(preferred: string): string {
    const base = preferred.length > 0 ? preferred : 'field';
    let name = base;
    for (let n = 2; this.used.has(name); n++) name = `${base}${n}`;
    this.used.add(name);
    return name;
  }

  has(name: string): boolean {
    return this.used.has(name);
  }
}

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

/** A name from what the value looks like, when markup said nothing useful. */
export function nameFromContent(text: string): string | null {
  if (looksLikePrice(text)) return 'price';
  if (looksLikeRating(text)) return 'rating';
  if (looksLikeDate(text)) return 'date';
  return null;
}
