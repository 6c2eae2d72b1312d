import type { AnyNode, Element } from 'domhandler';
import { allElements, elementChildren, stableClasses } from '../page/dom.js';
import { uniqueSelector } from '../page/selectors.js';

/**
 * What a page offers to narrow to: the elements holding at least three children of one kind (a list of jobs, a
 * table's rows, a grid of cards), with a selector for each and how many items it holds, most items first.
 * `generate` names them when a `--selector` matches nothing, so the user can pick one instead of guessing.
 */
export interface SectionCandidate {
  selector: string;
  items: number;
  /** The items' tag (and shared class), e.g. `li.job`. */
  item: string;
}

const SKIP = new Set(['html', 'head', 'script', 'style', 'select', 'svg', 'noscript', 'template']);

export function candidateSections(roots: AnyNode[], limit = 5): SectionCandidate[] {
  const found: Array<{ element: Element; items: number; item: string; textLength: number }> = [];
  // A document root is walked from its children: allElements starts at elements.
  for (const element of allElements(roots.flatMap((root) => (root.type === 'root' ? (root as unknown as Element).children : [root])))) {
    if (SKIP.has(element.name) || element.name === 'body') continue;
    const kinds = new Map<string, Element[]>();
    for (const child of elementChildren(element)) {
      if (SKIP.has(child.name)) continue;
      const kind = [child.name, ...stableClasses(child).slice(0, 1)].join('.');
      const members = kinds.get(kind);
      if (members) members.push(child);
      else kinds.set(kind, [child]);
    }
    const [item, members] = [...kinds.entries()].sort((a, b) => b[1].length - a[1].length)[0] ?? [];
    if (!item || !members || members.length < 3) continue;
    const textLength = members.reduce((sum, member) => sum + textLengthOf(member), 0);
    if (textLength === 0) continue;
    found.push({ element, items: members.length, item, textLength });
  }
  found.sort((a, b) => b.items - a.items || b.textLength - a.textLength);
  // Selectors only for the candidates shown: a page of 24,000 rows has 24,000 candidates, each a walk to name.
  const shown: SectionCandidate[] = [];
  for (const { element, items, item } of found) {
    if (shown.length >= limit) break;
    const selector = uniqueSelector(element, roots);
    if (!shown.some((other) => other.selector === selector)) shown.push({ selector, items, item });
  }
  return shown;
}

function textLengthOf(node: AnyNode): number {
  if (node.type === 'text') return (node as unknown as { data: string }).data.trim().length;
  return 'children' in node ? (node.children as AnyNode[]).reduce((sum, child) => sum + textLengthOf(child), 0) : 0;
}
