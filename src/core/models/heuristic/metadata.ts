import type { Field } from '../../config/index.js';
import { is } from 'css-select';
import type { AnyNode } from 'domhandler';
import { attr, elementChildren, isElement, selectIn, textOf, type Element } from '../../extract/index.js';
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
  {
    name: 'image',
    selectors: ['meta[property="og:image"]', 'meta[name="twitter:image"]'],
    attribute: 'content',
    type: 'url',
    transform: ['absoluteUrl'],
  },
  { name: 'language', selectors: ['html[lang]'], attribute: 'lang', type: 'string' },
];

/** Where to look: the html element itself for `html[...]`, the head for the rest, so a 1 MB body is never walked. */
function scopeFor(selector: string, context: DetectContext): AnyNode[] {
  const root = context.page.children.find((node): node is Element => isElement(node) && node.name === 'html');
  if (selector.startsWith('html')) return root && is(root, selector) ? [root] : [];
  if (!root) return [context.page];
  const head = elementChildren(root).find((element) => element.name === 'head');
  return head ? [head] : [context.page];
}

export function detectMetadata(context: DetectContext): Proposal[] {
  const proposals: Proposal[] = [];
  for (const candidate of CANDIDATES) {
    for (const selector of candidate.selectors) {
      const scope = scopeFor(selector, context);
      const element = selector.startsWith('html') ? (scope[0] as Element | undefined) : selectIn(selector, scope)[0];
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
