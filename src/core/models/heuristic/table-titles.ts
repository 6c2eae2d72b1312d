import { parentElement, selectIn, textOf, type Element } from '../../extract/index.js';
import { camelCase, splitWords, type NameSet } from './naming.js';
import type { Proposal } from './types.js';

/**
 * What a table is called: its caption, or the header row across it ("Scoring summary"), or the heading before
 * it. Several tables of one title (a scoring summary per game) are told apart by the heading before each.
 */

export interface TableTitle {
  /** The table's own name (from its caption, title row or the heading before it). */
  name: string | null;
  /** The heading before a table that titles itself: what tells apart tables of one title. */
  context: string | null;
}

/** The heading closest before the element in document order (h1–h4). */
function headingBefore(table: Element): string | null {
  for (let current: Element | null = table; current; current = parentElement(current)) {
    for (let sibling = current.prev; sibling; sibling = sibling.prev) {
      if (sibling.type !== 'tag') continue;
      const element = sibling as Element;
      if (/^h[1-4]$/.test(element.name)) return textOf(element);
      const inner = selectIn('h1, h2, h3, h4', element);
      if (inner.length > 0) return textOf(inner[inner.length - 1]!);
      // Only look back past small things (notes, paragraphs): a whole section in between means no title.
      if (['table', 'ul', 'ol'].includes(element.name) && textOf(element).length > 200) return null;
    }
  }
  return null;
}

function nameOf(text: string | null): string | null {
  const words = text ? splitWords(text).filter((word) => !/^(of|the|by|in|and|a|an|for|to|edit)$/.test(word)) : [];
  return words.length > 0 ? camelCase(words.slice(0, 3)) || null : null;
}

export function tableTitle(table: Element, titleRow: string | null): TableTitle {
  const caption = selectIn('caption', table)[0];
  const own = caption ? textOf(caption) : titleRow;
  const heading = headingBefore(table);
  return { name: nameOf(own ?? heading), context: own ? nameOf(heading) : null };
}

const capitalised = (name: string): string => `${name[0]!.toUpperCase()}${name.slice(1)}`;

/**
 * Two tables of one name are told apart by the heading before a self-titled one (`texasScoringSummaries`),
 * else by what their rows are (`resultsSingles`); a number only when nothing else differs.
 */
export function takeTableName(names: NameSet, proposal: Proposal, title: TableTitle, shared: boolean): string {
  const name = proposal.field.name;
  if (!names.has(name) && !(shared && title.context)) return names.take(name);
  const inContext =
    title.context && !name.toLowerCase().startsWith(title.context.toLowerCase()) ? `${title.context}${capitalised(name)}` : null;
  if (inContext && !names.has(inContext)) return names.take(inContext);
  const first = proposal.field.fields?.find((field) => field.type === 'string')?.name;
  const qualified = first && !name.toLowerCase().includes(first.toLowerCase()) ? `${name}${capitalised(first)}` : null;
  return names.take(qualified && !names.has(qualified) ? qualified : name);
}
