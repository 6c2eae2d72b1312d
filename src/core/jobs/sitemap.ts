import { PagejsonError } from '../shared/index.js';

/**
 * Sitemaps (sitemaps.org): a `<urlset>` of `<loc>` addresses, or a `<sitemapindex>` of further sitemaps, read
 * one level down. Everything here comes from outside: how many sitemaps an index may name and how many
 * addresses are taken are bounded, and include/exclude are wildcard patterns (`*`), matched without regular
 * expressions so that no pattern can make matching slow.
 */
export type TextFetcher = (url: string) => Promise<string>;

/** Sitemaps of an index read at most (a site's index rarely names more). */
export const MAX_CHILD_SITEMAPS = 200;
/** Addresses taken from all sitemaps together. */
export const MAX_SITEMAP_URLS = 1_000_000;

const LOC = /<loc>\s*([^<]*?)\s*<\/loc>/g;
const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&apos;': "'" };

function unescapeXml(text: string): string {
  return text.replace(/&(?:amp|lt|gt|quot|apos);/g, (entity) => ENTITIES[entity]!);
}

function locs(xml: string): string[] {
  const found: string[] = [];
  for (const match of xml.matchAll(LOC)) {
    found.push(unescapeXml(match[1]!));
    if (found.length >= MAX_SITEMAP_URLS) break;
  }
  return found;
}

/** `*` stands for any text; everything else is itself. The whole address must match. */
export function wildcardMatch(pattern: string, text: string): boolean {
  let p = 0;
  let t = 0;
  let star = -1;
  let resume = 0;
  while (t < text.length) {
    if (p < pattern.length && pattern[p] === '*') {
      star = p;
      resume = t;
      p += 1;
    } else if (p < pattern.length && pattern[p] === text[t]) {
      p += 1;
      t += 1;
    } else if (star !== -1) {
      p = star + 1;
      resume += 1;
      t = resume;
    } else return false;
  }
  while (p < pattern.length && pattern[p] === '*') p += 1;
  return p === pattern.length;
}

function kept(url: string, include: string[], exclude: string[]): boolean {
  if (include.length > 0 && !include.some((pattern) => wildcardMatch(pattern, url))) return false;
  return !exclude.some((pattern) => wildcardMatch(pattern, url));
}

/** The page addresses of a sitemap or sitemap index, with include/exclude applied, in the order they are listed. */
export async function sitemapUrls(
  url: string,
  fetchText: TextFetcher,
  filter: { include: string[]; exclude: string[] },
): Promise<string[]> {
  const first = await fetchText(url);
  let pages: string[];
  if (/<sitemapindex[\s>]/.test(first)) {
    const children = locs(first);
    if (children.length > MAX_CHILD_SITEMAPS)
      throw new PagejsonError('USAGE', `the sitemap index names ${children.length} sitemaps, more than ${MAX_CHILD_SITEMAPS}`, {
        hint: 'start one job per child sitemap',
      });
    pages = [];
    for (const child of children) {
      pages.push(...locs(await fetchText(child)));
      if (pages.length >= MAX_SITEMAP_URLS) break;
    }
  } else if (/<urlset[\s>]/.test(first)) pages = locs(first);
  else throw new PagejsonError('USAGE', `${url.slice(0, 300)} is not a sitemap (no <urlset> or <sitemapindex>)`);
  return pages.slice(0, MAX_SITEMAP_URLS).filter((page) => kept(page, filter.include, filter.exclude));
}
