import type { Field } from '../../config/index.js';
import {
  elementChildren,
  ownText,
  parentElement,
  quoteAttributeValue,
  selectIn,
  textOf,
  uniqueSelector,
  type Element,
} from '../../extract/index.js';
import type { DetectContext } from './types.js';

/**
 * Facts a product page shows about its product, found as a reader finds them: an element called for the
 * fact (`class="sku"`, `itemprop="brand"`), a label before the value ("Brand: Bosch", `<th>SKU</th><td>…`,
 * in the page's language), and for availability the buy button itself (a shop that offers "Add to cart"
 * sells the product). An SKU is read as the code in its text ("Product code 545642356 Not available" is
 * 545642356); availability as its schema.org name (the `availability` transform).
 */

export interface FactScope {
  elements: Element[];
  titleIndex: number;
  context: DetectContext;
  inRepeatedRegion: (element: Element) => boolean;
  /** The buy button nearest the title, if any. */
  buyButton: Element | null;
}

/** How far after the title facts may sit (specifications often come far below it), before it a little. */
const AFTER_TITLE = 3000;
const BEFORE_TITLE = 40;
const MAX_VALUE = 80;

/** The first code-like token: letters, digits and `-_./`, at least one digit. */
const SKU_CODE = 'regex:([A-Za-z0-9._/-]*[0-9][A-Za-z0-9._/-]*)';

const BY_NAME: Array<{ name: string; names: RegExp }> = [
  { name: 'brand', names: /(^|[-_\s])(brand|manufacturer|marque|marca|marke)([-_\s]|name|$)/i },
  {
    name: 'sku',
    names:
      /(^|[-_\s])(sku|product-?code|product-?id|product-?ref(erence)?|article-?(number|nr)|item-?(number|code)|model-?number|mpn)([-_\s]|$)/i,
  },
  { name: 'availability', names: /(^|[-_\s])(availability|stock|in-stock|out-of-stock|disponibilit\w*|verf[uü]gbarkeit)([-_\s]|$)/i },
];

const LABELS: Array<{ name: string; label: RegExp }> = [
  {
    name: 'sku',
    label:
      /^(sku|item (number|no\.?|#)|item#|article (number|no\.?)|numero (oggetto|articolo|prodotto)|n[º°o]\.? (de )?(art[íi]culo|article|r[ée]f[ée]rence|referencia)|id (do |del |de |du )?(produto|producto|produit|prodotto)|cod(ul)? produs|art\.?[- ]?nr\.?|artikel-?(nummer|nr\.?)|product (code|id|number|no\.?)|model (number|no\.?)|part (number|no\.?)|mpn|ref\.?|r[ée]f[ée]rence|r[ée]f\.?|c[óo]digo( del? (producto|artículo|produto))?|referencia|refer[êe]ncia|cod\.?|code|k[óo]d|[šs]ifra|codice( (prodotto|articolo))?|kod (produktu|towaru)|numer katalogowy|tootekood|produkta kods|prekės kodas|[üu]r[üu]n kodu|артикул|код( товара)?|品番|型番|商品コード|商品番号)$/i,
  },
  {
    name: 'brand',
    label:
      /^(brand|marke|marque|marca|marchio|merk|marka|značka|márka|märke|mærke|merke|merkki|zīmols|ražotājs|kaubamärk|tootja|prekės ženklas|gamintojas|producent|výrobce|gyártó|tillverkare|producător|marcă|üretici|бренд|производитель|виробник|hersteller|manufacturer|fabricant|fabricante|fabrikant|produttore|valmistaja|ブランド|メーカー)$/i,
  },
  {
    name: 'availability',
    label:
      /^(availability|stock|in stock\?|verf[üu]gbarkeit|lagerstatus|disponibilit[ée]|disponibilidad|disponibilidade|disponibilit[àa]|beschikbaarheid|dost[ęe]pno[śs][ćc]|наличие|在庫)$/i,
  },
];

const GENERIC_CODE = /^(code|k[óo]d|[šs]ifra)$/i;

const cleanLabel = (text: string): string => text.replace(/[\s:#.]+$/, '').trim();

/**
 * A label, also with the shop's name before or after it ("eBay item number", "Numero oggetto eBay"); not for
 * availability, whose one-word labels are the end of a value ("En stock" states the stock, it labels nothing).
 */
function isLabel(text: string, label: RegExp, name?: string): boolean {
  const words = cleanLabel(text).split(/\s+/);
  // "Code" labels an SKU standing alone; in "Promo code" or "Postal code" it labels something else.
  const partial = [words.slice(1), words.slice(0, -1)].filter((part) => !(part.length === 1 && GENERIC_CODE.test(part[0]!)));
  const parts = name === 'availability' ? [words] : [words, ...partial];
  return parts.some((part) => part.length > 0 && label.test(part.join(' ')));
}

/** Whether a label names a fact the product object reads (SKU, brand, stock), in any language it knows. */
export function isProductFactLabel(text: string): boolean {
  return LABELS.some(({ name, label }) => isLabel(text, label, name));
}

function transformFor(name: string, label: string | null): string[] {
  if (name === 'sku') return [SKU_CODE];
  if (name === 'availability') return ['availability'];
  return label ? [`regex:^\\s*${escapeRegex(label)}\\s*[:#.]?\\s*(.+)$`] : [];
}

/** An element called for the fact, near the title, small, and outside look-alike priced regions. */
function byName(scope: FactScope, near: Element[], name: string, names: RegExp): Field | null {
  const found = near.find((element) => {
    const called = `${element.attribs.class ?? ''} ${element.attribs.id ?? ''} ${element.attribs.itemprop ?? ''} ${dataNames(element)
      .map(([, value]) => value)
      .join(' ')}`;
    // The name first: reading the text of every element near the title reads the whole page through its ancestors.
    if (!names.test(called)) return false;
    const text = textOf(element);
    return text.length >= 2 && text.length <= MAX_VALUE && elementChildren(element).length <= 3 && !scope.inRepeatedRegion(element);
  });
  if (!found) return null;
  const transform = labelCutTransform(name, textOf(found)) ?? transformFor(name, null);
  return { name, type: 'string', selector: namedSelector(found, names, scope), ...(transform.length > 0 ? { transform } : {}) };
}

/**
 * "Brand: Bosch", or "See more from the brand: Bosch", in the value's own text: the transform cutting the
 * label off, or null when the text holds no label of the fact. Microdata values carry such labels too.
 */
export function labelCutTransform(name: string, text: string): string[] | null {
  const label = LABELS.find((entry) => entry.name === name)?.label;
  if (!label) return null;
  const opening = /^([^:]{2,30}):/.exec(text)?.[1];
  if (opening && isLabel(opening, label)) return transformFor(name, opening.trim());
  const inline = /(?:^|\s)([^\s:]{2,30})\s*:\s*[^:]+$/.exec(text)?.[1];
  return name === 'brand' && inline && isLabel(inline, label) ? [`regex:${escapeRegex(inline)}\\s*:\\s*(.+)$`] : null;
}

/**
 * Names a page gives an element in its test and automation hooks (`data-qa="product-reference"`,
 * `data-testid="sku"`); other data attributes hold states and values (`data-stock-status="dispo"`).
 */
const NAMING_DATA = /^data-(qa|test|testid|test-id|cy|e2e|automation|auto-id|hook|element|field)(-|$)/;
function dataNames(element: Element): Array<[string, string]> {
  return Object.entries(element.attribs).filter(([key, value]) => NAMING_DATA.test(key) && /^[A-Za-z][\w-]{2,40}$/.test(value));
}

/** The element by the data attribute that names it when that picks it out alone, else by its id, class or place. */
function namedSelector(element: Element, names: RegExp, scope: FactScope): string {
  for (const [key, value] of dataNames(element)) {
    if (!names.test(value)) continue;
    const selector = `${element.name}[${key}=${quoteAttributeValue(value)}]`;
    const matches = selectIn(selector, scope.context.sectionRoots);
    if (matches.length === 1 && matches[0] === element) return selector;
  }
  return uniqueSelector(element, scope.context.sectionRoots);
}

/** A label element ("Brand:") followed by its value element, or one element holding "Brand: Bosch". */
function byLabel(scope: FactScope, near: Element[], name: string, label: RegExp): Field | null {
  for (const element of near) {
    const own = cleanLabel(ownText(element));
    if (own.length === 0 || own.length > 40) continue;
    const text = textOf(element);
    if (isLabel(text, label, name) && text.length <= 45) {
      const value = nextElement(element);
      if (!value || !textOf(value) || textOf(value).length > MAX_VALUE || scope.inRepeatedRegion(value)) continue;
      const anchored = `${element.name}:contains(${quoteAttributeValue(text)}) + ${value.name}`;
      const first = selectIn(anchored, scope.context.sectionRoots)[0];
      const selector = first === value ? anchored : uniqueSelector(value, scope.context.sectionRoots);
      const transform = transformFor(name, null);
      return { name, type: 'string', selector, ...(transform.length > 0 ? { transform } : {}) };
    }
    const inline = /^([^:]{2,30}):\s*(.+)$/.exec(text);
    if (inline && isLabel(inline[1]!, label) && text.length <= MAX_VALUE && elementChildren(element).length <= 3) {
      const transform = transformFor(name, inline[1]!.trim());
      return { name, type: 'string', selector: uniqueSelector(element, scope.context.sectionRoots), transform };
    }
  }
  return null;
}

/** The value beside a label: its next element sibling, or for a label cell or term, the next cell or definition. */
function nextElement(element: Element): Element | null {
  for (let current: Element | null = element; current; current = parentElement(current)) {
    let sibling = current.next;
    while (sibling && sibling.type !== 'tag') sibling = sibling.next;
    if (sibling) return sibling as Element;
    // A label wrapped in its cell (`<td><b>Brand</b></td><td>…`): the cell's next sibling.
    if (!parentElement(current) || textOf(parentElement(current)!) !== textOf(element)) return null;
  }
  return null;
}

export function productFacts(scope: FactScope): Field[] {
  const { elements, titleIndex, context } = scope;
  if (titleIndex < 0) return [];
  const fields: Field[] = [];
  const nearTitle = elements.slice(Math.max(0, titleIndex - BEFORE_TITLE), titleIndex + 400);
  const below = elements.slice(Math.max(0, titleIndex - BEFORE_TITLE), titleIndex + AFTER_TITLE);
  for (const { name, names } of BY_NAME) {
    const field = byName(scope, nearTitle, name, names) ?? byLabel(scope, below, name, LABELS.find((entry) => entry.name === name)!.label);
    if (field) fields.push(field);
  }
  if (!fields.some((field) => field.name === 'availability') && scope.buyButton) {
    const button = scope.buyButton;
    const attribute = button.name === 'input' ? { attribute: 'value' } : {};
    fields.push({
      name: 'availability',
      type: 'string',
      selector: uniqueSelector(button, context.sectionRoots),
      ...attribute,
      transform: ['availability'],
    });
  }
  return fields;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
