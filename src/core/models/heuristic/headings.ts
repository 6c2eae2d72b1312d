import { selectIn, textOf } from '../../extract/index.js';
import type { DetectContext, Proposal } from './types.js';

/** The main heading: the section's first non-empty h1 (the page's when the section has none). */
export function detectHeadings(context: DetectContext): Proposal[] {
  const inSection = selectIn('h1', context.sectionRoots);
  const candidates = inSection.length > 0 ? inSection : selectIn('h1', context.page);
  if (!candidates.some((heading) => textOf(heading).length > 0)) return [];
  // `h1` is enough even when an empty h1 (a logo) comes first: the engine reads the first match with a value.
  return [{ kind: 'heading', field: { name: 'heading', type: 'string', selector: 'h1' }, score: 1, hints: 'heading' }];
}
