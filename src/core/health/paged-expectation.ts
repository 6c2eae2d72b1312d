import { paginationListField, parseHtml, textOf, allElements, type Element } from '../extract/index.js';
import type { ApiConfig } from '../config/index.js';

/**
 * What a repair may expect to find on one page of a paginated endpoint (docs/pagination.md): the last good
 * data (a snapshot's) holds the merged list of every page, and a repair works on the first page, where the
 * items of the pages after it never were. Left in, they would count as values the repair failed to bring
 * back: every list field "unrepaired", the recovery a fraction. Kept: the items with a value on this page
 * (its text, or a link's address); the other fields are the first page's anyway. Without pagination, or when
 * no item is on the page at all (the repair then finds nothing either way), the data is left as it is.
 */
export function pageExpectation(
  config: Pick<ApiConfig, 'structure' | 'pagination'>,
  expected: Record<string, unknown>,
  html: string,
  pageUrl: string,
): Record<string, unknown> {
  const pagination = config.pagination;
  const list = pagination ? paginationListField(config.structure, pagination) : undefined;
  const items = list !== undefined && Object.hasOwn(expected, list) ? expected[list] : undefined;
  if (list === undefined || !Array.isArray(items) || items.length === 0) return expected;
  const onPage = pageValues(html, pageUrl);
  const kept = items.filter((item) => leaves(item).some((value) => onPage(value)));
  return kept.length === 0 ? expected : { ...expected, [list]: kept };
}

const norm = (value: string) => value.replace(/\s+/g, ' ').trim().toLowerCase();

/** Whether a value is on the page: in its text, or as the address of one of its links or images. */
function pageValues(html: string, pageUrl: string): (value: string | number) => boolean {
  const doc = parseHtml(html);
  const text = norm(textOf(doc));
  const addresses = new Set<string>();
  for (const element of allElements(doc.children) as Element[]) {
    for (const name of ['href', 'src']) {
      const raw = element.attribs[name];
      if (raw === undefined) continue;
      try {
        addresses.add(new URL(raw, pageUrl).href);
      } catch {
        // not an address
      }
    }
  }
  return (value) => {
    if (typeof value === 'number') return text.includes(String(value));
    if (addresses.has(value)) return true;
    const wanted = norm(value);
    return wanted.length >= 3 && text.includes(wanted);
  };
}

function leaves(value: unknown, out: Array<string | number> = []): Array<string | number> {
  if (typeof value === 'string' || typeof value === 'number') out.push(value);
  else if (Array.isArray(value)) for (const item of value) leaves(item, out);
  else if (value !== null && typeof value === 'object') for (const item of Object.values(value)) leaves(item, out);
  return out;
}
