import type { AnyNode, Element, Text } from 'domhandler';
import { cloneNode } from 'domhandler';
import { getOuterHTML } from 'domutils';
import { parseDocument } from 'htmlparser2';

/**
 * Smaller changes than the generic redesign (redesign.ts), for measuring health where a page breaks in part:
 *
 * - `renameLeafClasses`: only the classes of elements without element children (and of links) are renamed, as
 *   when a component library renames its text styles: containers stay, fields break;
 * - `renameItemClasses`: only the classes of the repeated children of lists are renamed (the item container);
 * - `insertDecoyBefore`: a copy of the first table (else of the first list) with other text and links is
 *   inserted before it, as a promo block above the content.
 */
const tags = (node: { children: AnyNode[] }) => node.children.filter((child): child is Element => child.type === 'tag');

function all(doc: { children: AnyNode[] }): Element[] {
  const out: Element[] = [];
  const walk = (node: { children: AnyNode[] }) => {
    for (const child of tags(node)) {
      out.push(child);
      walk(child);
    }
  };
  walk(doc);
  return out;
}

const renamed = (cls: string) => `${cls.replace(/[^A-Za-z0-9]/g, '')}_v2__q7`;
const rename = (element: Element) => {
  if (element.attribs.class) element.attribs.class = element.attribs.class.split(/\s+/).filter(Boolean).map(renamed).join(' ');
};

/** Repeated children of an element: three or more of one tag. */
function repeated(element: Element): Element[] {
  const children = tags(element).filter((child) => !['script', 'style', 'option'].includes(child.name));
  const counts = new Map<string, number>();
  for (const child of children) counts.set(child.name, (counts.get(child.name) ?? 0) + 1);
  return children.filter((child) => (counts.get(child.name) ?? 0) >= 3);
}

export function renameLeafClasses(html: string): string {
  const doc = parseDocument(html);
  for (const element of all(doc)) if (tags(element).length === 0 || element.name === 'a') rename(element);
  return getOuterHTML(doc, { encodeEntities: 'utf8' });
}

export function renameItemClasses(html: string): string {
  const doc = parseDocument(html);
  for (const element of all(doc)) for (const item of repeated(element)) rename(item);
  return getOuterHTML(doc, { encodeEntities: 'utf8' });
}

export function insertDecoyBefore(html: string): string {
  const doc = parseDocument(html);
  // In the body: a copy of the head (its meta tags repeat) is no promo block.
  const body = all(doc).find((element) => element.name === 'body');
  const elements = body ? all(body) : all(doc);
  const target = elements.find((element) => element.name === 'table') ?? elements.find((element) => repeated(element).length >= 3);
  if (!target?.parent) return html;
  const decoy = cloneNode(target, true) as Element;
  let n = 0;
  for (const element of [decoy, ...all(decoy)]) {
    if (element.attribs.href) element.attribs.href = `/promo/${(n += 1)}`;
    if (element.attribs.src) element.attribs.src = `/promo/${(n += 1)}.png`;
    for (const child of element.children)
      if (child.type === 'text' && (child as Text).data.trim() !== '') (child as Text).data = `PROMO${(n += 1)}`;
  }
  const siblings = (target.parent as Element).children;
  siblings.splice(siblings.indexOf(target), 0, decoy);
  decoy.parent = target.parent;
  siblings.forEach((child, index) => {
    child.prev = siblings[index - 1] ?? null;
    child.next = siblings[index + 1] ?? null;
  });
  return getOuterHTML(doc, { encodeEntities: 'utf8' });
}
