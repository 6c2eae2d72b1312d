import type { Field } from '../../config/index.js';
import { attr, selectIn, textOf, type Element } from '../../extract/index.js';

/**
 * Fields of items that share no one layout: sections of one list, each laid out its own way (a banner slide, a
 * product card, a promotion, all `li` of one list). Slots by path find nothing common to them, yet a reader
 * sees the same parts in each: a heading that is the record's title, a link, an image. Those are read by what
 * they are, wherever they sit in the item.
 */

const HEADING = 'h1, h2, h3, h4, h5, h6';
const LINK = 'a[href]:not([href^="#"]):not([href^="javascript:"])';
const IMAGE = 'img[src]:not([src^="data:"])';

/** Present (with something to read) in at least half of the items. */
function common(items: Element[], selector: string, read: (element: Element) => string): boolean {
  const filled = items.filter((item) => {
    const first = selectIn(selector, item).find((element) => element !== item);
    return first !== undefined && read(first) !== '';
  }).length;
  return filled * 2 >= items.length;
}

/** The parts by role that the fields found by path lack: `title`, `url`, `image`. */
export function looseFields(items: Element[], fields: Field[]): Field[] {
  const has = (name: string) => fields.some((field) => field.name === name);
  const hasLink = fields.some((field) => field.attribute === 'href');
  const loose: Field[] = [];
  if (!has('title') && common(items, HEADING, textOf)) loose.push({ name: 'title', type: 'string', selector: HEADING });
  if (!hasLink && !has('url') && common(items, LINK, (element) => attr(element, 'href') ?? ''))
    loose.push({ name: 'url', type: 'url', selector: LINK, attribute: 'href', transform: ['absoluteUrl'] });
  if (!has('image') && common(items, IMAGE, (element) => attr(element, 'src') ?? ''))
    loose.push({ name: 'image', type: 'url', selector: IMAGE, attribute: 'src', transform: ['absoluteUrl'] });
  return loose;
}
