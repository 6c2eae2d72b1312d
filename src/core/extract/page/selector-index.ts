import { removeSubsets } from 'domutils';
import type { AnyNode, Element } from 'domhandler';

/**
 * The heuristic's candidate selectors are mostly simple (`li`, `li.card`, `div.price.now`, `section#main`),
 * and a candidate that picks out exactly its element must be checked against the whole page: a walk of every
 * element per candidate, dozens of times on a 1 MB page. Roots checked a second time get an index of their
 * elements by tag, class and id, and simple selectors are answered from it. The page is not changed while
 * the model reads it, so an index stays true for the roots it was built on.
 */
const SIMPLE = /^([a-z][a-z0-9-]*)((?:\.-?[A-Za-z_][\w-]*)*)(?:#([A-Za-z][\w-]*))?$/;

interface Index {
  byTag: Map<string, Element[]>;
  byClass: Map<string, Element[]>;
  byId: Map<string, Element[]>;
}

const seen = new WeakMap<object, number | Index>();

/** The elements css-select searches for these roots: an array's top-most roots and below, else below the node. */
function searched(roots: AnyNode | AnyNode[]): Element[] {
  const stack: AnyNode[] = Array.isArray(roots)
    ? removeSubsets([...roots]).reverse()
    : [...('children' in roots ? roots.children : [])].reverse();
  const out: Element[] = [];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.type !== 'tag' && node.type !== 'script' && node.type !== 'style') continue;
    out.push(node);
    // css-select does not search template contents.
    if (node.name !== 'template') for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  return out;
}

function push(map: Map<string, Element[]>, key: string, element: Element): void {
  const list = map.get(key);
  if (list) list.push(element);
  else map.set(key, [element]);
}

function indexOf(roots: AnyNode | AnyNode[]): Index | null {
  const known = seen.get(roots);
  if (typeof known === 'object') return known;
  // The first check against these roots walks as before: many roots are checked once.
  if (known === undefined) {
    seen.set(roots, 1);
    return null;
  }
  const index: Index = { byTag: new Map(), byClass: new Map(), byId: new Map() };
  for (const element of searched(roots)) {
    push(index.byTag, element.name, element);
    for (const name of new Set((element.attribs.class ?? '').split(/\s+/))) if (name) push(index.byClass, name, element);
    if (element.attribs.id !== undefined) push(index.byId, element.attribs.id, element);
  }
  seen.set(roots, index);
  return index;
}

/** The matches of a simple selector among the roots from their index, or null when it cannot say. */
export function indexedMatches(selector: string, roots: AnyNode | AnyNode[]): Element[] | null {
  const simple = SIMPLE.exec(selector);
  if (!simple) return null;
  const index = indexOf(roots);
  if (!index) return null;
  const [, tag, classPart, id] = simple;
  const classes = classPart ? classPart.slice(1).split('.') : [];
  const pool = id !== undefined ? index.byId.get(id) : classes.length > 0 ? index.byClass.get(classes[0]!) : index.byTag.get(tag!);
  return (pool ?? []).filter((element) => {
    if (element.name !== tag || (id !== undefined && element.attribs.id !== id)) return false;
    const own = (element.attribs.class ?? '').split(/\s+/);
    return classes.every((name) => own.includes(name));
  });
}
