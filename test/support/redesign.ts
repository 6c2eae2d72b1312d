import { createHash } from 'node:crypto';
import type { AnyNode, Element } from 'domhandler';
import { Element as DomElement, Text } from 'domhandler';
import { getOuterHTML } from 'domutils';
import { parseDocument } from 'htmlparser2';

/**
 * A generic redesign of a page, the kinds that break compiled selectors (drift tests and the repair-quality
 * measure): every class renamed as a CSS-modules build renames it (`price` → `Price_price__3kd9a`), an extra
 * wrapper around every list, item tags changed (`article` → `div`, `div` → `section`), the children of every
 * list item in reverse order, and each price put inside a child element of its own. Same text, same links.
 */
const hash = (text: string) =>
  createHash('sha256')
    .update(text)
    .digest('base64url')
    .replace(/[^A-Za-z0-9]/g, 'x')
    .slice(0, 5);
const tags = (node: { children: AnyNode[] }) => node.children.filter((child): child is Element => child.type === 'tag');
const PRICE = /([$€£¥]\s?\d[\d.,]*|\d[\d.,]*\s?(€|EUR|USD|kr))/;

function isList(element: Element): boolean {
  const children = tags(element).filter((child) => !['script', 'style', 'tr', 'td', 'th', 'tbody', 'thead', 'option'].includes(child.name));
  const counts = new Map<string, number>();
  for (const child of children) counts.set(child.name, (counts.get(child.name) ?? 0) + 1);
  return [...counts.values()].some((count) => count >= 3);
}

export function redesign(html: string): string {
  const doc = parseDocument(html);
  const all: Element[] = [];
  const walk = (node: { children: AnyNode[] }) => {
    for (const child of tags(node)) {
      all.push(child);
      walk(child);
    }
  };
  walk(doc);
  for (const element of all) {
    if (element.attribs.class)
      element.attribs.class = element.attribs.class
        .split(/\s+/)
        .filter(Boolean)
        .map(
          (cls) => `${cls[0]!.toUpperCase()}${cls.slice(1).replace(/[^A-Za-z0-9]/g, '')}_${cls.replace(/[^A-Za-z0-9]/g, '')}__${hash(cls)}`,
        )
        .join(' ');
  }
  for (const list of all.filter(isList)) {
    for (const item of tags(list)) {
      if (item.name === 'article') item.name = 'div';
      else if (item.name === 'div') item.name = 'section';
      // Records' fields in another order; a table's rows keep theirs (row spans and headers depend on it).
      if (!['table', 'thead', 'tbody', 'tr', 'ul', 'ol', 'dl'].includes(item.name)) item.children.reverse();
      item.children.forEach((child, index, children) => {
        child.prev = children[index - 1] ?? null;
        child.next = children[index + 1] ?? null;
      });
    }
    // The extra wrapper: the list's children move into a new element.
    const wrapper = new DomElement('div', { class: `Grid_inner__${hash(list.name)}` }, list.children);
    for (const child of wrapper.children) child.parent = wrapper;
    list.children = [wrapper];
    wrapper.parent = list;
  }
  // Prices into a child element of their own.
  const texts: Text[] = [];
  const collect = (node: AnyNode) => {
    if (node.type === 'text') texts.push(node as Text);
    else if ('children' in node && !(node.type === 'script' || node.type === 'style'))
      for (const child of (node as Element).children) collect(child);
  };
  collect(doc);
  for (const text of texts) {
    if (!PRICE.test(text.data) || text.data.length > 40 || !text.parent) continue;
    const span = new DomElement('span', { class: `Money_value__${hash(text.data)}` }, [new Text(text.data)]);
    span.children[0]!.parent = span;
    const siblings = (text.parent as Element).children;
    const at = siblings.indexOf(text);
    siblings[at] = span;
    span.parent = text.parent;
    span.prev = text.prev;
    span.next = text.next;
    if (span.prev) span.prev.next = span;
    if (span.next) span.next.prev = span;
  }
  return getOuterHTML(doc, { encodeEntities: 'utf8' });
}
