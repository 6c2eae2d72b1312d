import type { Field } from '../../config/schema.js';
import { attr, selectIn, textOf } from './dom.js';
import type { DetectContext, Proposal } from './types.js';

/**
 * Page metadata from the whole page (head), even when the section is narrower: title, description,
 * canonical URL, main image and language. Each candidate is checked on the page; absent ones are not offered.
 */
interface MetaCandidate {
  name: string;
  selectors: string[];
  attribute?: string;
  type: Field['type'];
  transform?: string[];
}

const CANDIDATES: MetaCandidate[] = [
  { name: 'title', selectors: ['head > title', 'meta[property="og:title"]'], type: 'string' },
  { name: 'description', selectors: ['meta[name="description"]', 'meta[property="og:description"]'], attribute: 'content', type: 'string' },
  { name: 'canonicalUrl', selectors: ['link[rel="canonical"]'], attribute: 'href', type: 'url', transform: ['absoluteUrl'] },
  { name: 'image', selectors: ['meta[property="og:image"]', 'meta[name="twitter:image"]'], attribute: 'content', type: 'url', transform: ['absoluteUrl'] },
  { name: 'language', selectors: ['html[lang]'], attribute: 'lang', type: 'string' },
];

export function detectMetadata(context: DetectContext): Proposal[] {
  const proposals: Proposal[] = [];
  for (const candidate of CANDIDATES) {
    for (const selector of candidate.selectors) {
      const element = selectIn(selector, context.page)[0];
      if (!element) continue;
      const value = candidate.attribute ? attr(element, candidate.attribute) : textOf(element);
      if (!value) continue;
      // og:title carries its text in `content`; every other selector here is read as listed.
      const attribute = selector.startsWith('meta[') ? 'content' : candidate.attribute;
      const field: Field = { name: candidate.name, type: candidate.type, selector };
      if (attribute) field.attribute = attribute;
      if (candidate.transform) field.transform = candidate.transform;
      proposals.push({ kind: 'metadata', field, score: 1, hints: candidate.name });
      break;
    }
  }
  return proposals;
}
