import { selectIn, textOf } from './dom.js';
import type { DetectContext, Proposal } from './types.js';

/** The main heading: the section's first non-empty h1 (the page's when the section has none). */
export function detectHeadings(context: DetectContext): Proposal[] {
  const inSection = selectIn('h1', context.sectionRoots);
  const candidates = inSection.length > 0 ? inSection : selectIn('h1', context.page);
  const index = candidates.findIndex((heading) => textOf(heading).length > 0);
  if (index < 0) return [];
  // `h1` alone reads the first one; when an empty h1 (a logo) comes first, name the position.
  const selector = index === 0 ? 'h1' : `h1:nth-of-type(${index + 1})`;
  return [{ kind: 'heading', field: { name: 'heading', type: 'string', selector }, score: 1, hints: 'heading' }];
}
