/**
 * Field names. A name should be what a user would type: `price`, `title`, `location`, not `priceColor` or
 * `col3`. Names come, in order of trust, from itemprop, labels, class names (cleaned of layout words) and
 * the content itself; they are camelCased to fit FIELD_NAME_PATTERN and made unique within their level.
 */

// What values look like (prices, dates, counts) lives in content-kinds.ts; these are read from here too.
export {
  CURRENCY,
  looksLikeDate,
  looksLikeNumber,
  looksLikePrice,
  looksLikeRating,
  nameFromContent,
  nameFromValues,
} from './content-kinds.js';
export { isReadableName, isReadableWord, splitWords } from './readable-words.js';
import { isReadableName, looksHashed, splitWords } from './readable-words.js';

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
  'semibold',
  'truncate',
  'ellipsis',
  'nowrap',
  'clear',
  'tertiary',
  'skeleton',
  'loading',
]);

/** Words that, wherever they appear, name the field outright (synonyms folded to one name). */
const KNOWN_NAMES: Array<[RegExp, string]> = [
  [/^(price|prices|cost|amount|preis|kaufpreis|miete)$/, 'price'],
  [/^(subtitle|subheading|subhead|tagline|kicker|standfirst|strapline)$/, 'subtitle'],
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

function knownName(word: string): string | null {
  for (const [pattern, name] of KNOWN_NAMES) if (pattern.test(word)) return name;
  return null;
}

/** Whether a word is one of the field names the model knows (or a synonym of one). */
export function isKnownFieldWord(word: string): boolean {
  return KNOWN_NAMES.some(([pattern]) => pattern.test(word));
}

export function camelCase(words: string[]): string {
  const ascii = words.map((word) => word.normalize('NFD').replace(/[^a-z0-9]/g, '')).filter((word) => word.length > 0);
  const joined = ascii.map((word, index) => (index === 0 ? word : word[0]!.toUpperCase() + word.slice(1))).join('');
  const safe = /^[A-Za-z_$]/.test(joined) ? joined : joined.length > 0 ? `f${joined}` : '';
  return safe.slice(0, 40);
}

/** A name from free text (a label, a header cell, a class): known synonyms first, then camelCase. */
export function nameFromText(raw: string, options: { keepNoise?: boolean; except?: string[]; skip?: Set<string> } = {}): string | null {
  // A word that names what the caller knows already (`link` on a link, `lamp` in a `lamp` card) is left out:
  // it tells nothing apart.
  const words = splitWords(raw).filter(
    (word) => !(options.except ?? []).includes(knownName(word) ?? '') && !(options.skip?.has(word) ?? false),
  );
  // `sub_title` is one word to a reader; in `reviews-author` or "Posted by" the last known word says what it is.
  const whole = words.length > 1 ? knownName(words.join('')) : null;
  if (whole) return whole;
  for (const word of [...words].reverse()) {
    const known = knownName(word);
    if (known) return known;
  }
  const meaningful = options.keepNoise ? words : words.filter((word) => !NOISE_WORDS.has(word) && !/^\d+$/.test(word));
  const name = camelCase(meaningful.slice(0, 4));
  // Two letters (`bb`, `tx`) name nothing a reader recognises.
  return name.length > 2 ? name : null;
}

/** Utility-first CSS (Tailwind, Bootstrap helpers) says how a thing looks: never a name. */
const UTILITY_CLASS =
  /^([a-z0-9]+:)*(m|p|[mp][trblxy]|w|h|min|max|text|font|bg|border|rounded|shadow|flex|grid|gap|space|items|justify|object|aspect|inset|absolute|relative|group|tracking|leading|opacity|z|order|overflow|col|row|d|float|align|fw|fs|lh|ms|me|ps|pe|sr|line|truncate|uppercase|lowercase|capitalize|italic|underline|hover|focus|sm|md|lg|xl|xxl|block|inline|hidden|visible|static|fixed|sticky|top|bottom|left|right|start|end|self|place|content|list|divide|ring|transition|duration|ease|cursor|select|pointer|whitespace|break)(-|$)/;

export function isUtilityClass(name: string): boolean {
  // A BEM element (`static-offer-widget__title`) is a component's part, whatever word its block starts with.
  return !name.includes('__') && UTILITY_CLASS.test(name);
}

/** A name from class names: the most specific meaningful one (the last class usually is). */
export function nameFromClasses(classes: string[], except?: string[], skip?: Set<string>): string | null {
  // Atomic CSS (`EKabf7 xOFAt kMvGAR`) gives every element a bag of hashes: none of them names it.
  if (classes.length > 0 && classes.filter(looksHashed).length * 2 >= classes.length) return null;
  for (const cls of [...classes].reverse().filter((name) => !isUtilityClass(name) && !looksHashed(name))) {
    // CSS modules: `ProductCard_name__9yTq2` names `name`; BEM: `story-card__headline--large` names `headline`.
    const moduleName = /^[A-Za-z][A-Za-z0-9]*_([A-Za-z][A-Za-z0-9-]*)__[A-Za-z0-9_-]{4,10}$/.exec(cls)?.[1];
    if (moduleName) {
      const name = nameFromText(moduleName, { except, skip });
      if (name && isReadableName(name)) return name;
      continue;
    }
    // A build's hash after BEM (`OfferCard__title___39y5H`) is no part of the name.
    const unhashed = cls.replace(/_{3}[A-Za-z0-9-]{4,10}$/, '');
    const element = unhashed.includes('__') ? unhashed.split('__').pop()!.split('--')[0]! : unhashed;
    const name = nameFromText(element, { except, skip }) ?? nameFromText(unhashed, { except, skip });
    if (name && isReadableName(name)) return name;
  }
  return null;
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

  /** A name given too early (the first of two prices was the old one): the new name is taken, the old freed. */
  rename(from: string, to: string): void {
    this.used.delete(from);
    this.used.add(to);
  }
}
