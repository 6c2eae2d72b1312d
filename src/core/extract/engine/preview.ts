import { compileSelector, documentBaseUrl, parseHtml, visibleText, type Document } from './dom.js';
import { toAbsoluteUrl } from './transforms.js';

export interface PreviewOptions {
  /** Read this attribute instead of the text. */
  attribute?: string;
  /** At most this many values (default 20). */
  limit?: number;
  /** The page's URL: URL attributes (href, src, …) are then shown absolute, as a `url` field would yield them. */
  baseUrl?: string;
}

const URL_ATTRIBUTES = new Set(['href', 'src', 'action', 'poster', 'cite', 'data-src', 'data-href', 'data-url', 'srcset']);

/**
 * The values a selector yields on a page (whitespace-collapsed text, or an attribute), empty ones left out:
 * for the edit and generate screens, and for models checking a selector before offering it. Accepts a
 * parsed document so that checking many selectors on one big page parses it once.
 */
export function previewSelector(html: string | Document, selector: string, options: PreviewOptions = {}): string[] {
  const doc = typeof html === 'string' ? parseHtml(html) : html;
  const limit = options.limit ?? 20;
  const attribute = options.attribute?.toLowerCase();
  const resolveAgainst =
    options.baseUrl !== undefined && attribute !== undefined && URL_ATTRIBUTES.has(attribute) && attribute !== 'srcset'
      ? documentBaseUrl(doc, options.baseUrl)
      : undefined;
  const values: string[] = [];
  for (const element of compileSelector(selector).select(doc)) {
    if (values.length >= limit) break;
    let value = attribute === undefined ? visibleText(element) : (element.attribs[attribute]?.trim() ?? '');
    if (value !== '' && resolveAgainst !== undefined) value = toAbsoluteUrl(value, resolveAgainst) ?? value;
    if (value !== '') values.push(value);
  }
  return values;
}
