import { DomUtils } from 'htmlparser2';
import type { Field } from '../config/index.js';
import type { AnyNode } from 'domhandler';
import {
  attr,
  candidateSections,
  fieldMatches,
  parentElement,
  parseHtml,
  sectionRoots,
  selectIn,
  textOf,
  type Element,
} from '../extract/index.js';
import { cleanHtml } from './html-cleaner.js';
import { isNarrowed } from './heuristic/verify.js';

/**
 * What a model is shown of a page instead of its first N characters (docs/models.md, "What the model sees"):
 * the regions the heuristic's analysis found (its verified proposal: repeated groups, tables, the product
 * block, headings and labels) and the page's other repeated groups (`candidateSections`, the list `generate`
 * offers for a selector that matches nothing), each with the selector that reaches it and a compact sample of
 * its HTML. The section a user named with `--selector` comes first. A list at the end of a 3 MB page is
 * found by the analysis wherever it sits, so it is shown wherever it sits.
 */
export interface PageRegion {
  /** What it is, in words: `the section you chose`, `list of 30 items`, `table`, `page facts`. */
  what: string;
  /** The selector reaching it (top-level selectors are matched inside the section). */
  selector: string;
  /** The field of the heuristic's proposal it became, when it became one. */
  proposedAs?: string;
  /** Cleaned HTML: the first items of a list, the element of a block, the elements of page facts. */
  sample: string;
}

/** Samples are cut here before the budget shares them out: no single region takes the whole prompt. */
const SAMPLE_ITEMS = 2;
const MAX_ITEM_CHARS = 2_500;
const MAX_FACT_CHARS = 300;
const MAX_SECTION_SAMPLE_CHARS = 6_000;

const outer = (element: Element): string => DomUtils.getOuterHTML(element as never, { decodeEntities: true, encodeEntities: 'utf8' });
// A sample is one item: its own repeats (a table row's cells) are all kept, up to the sample's length.
const compact = (html: string, maxChars: number): string => cleanHtml(html, { maxChars, keepRepeated: 12, maxTextChars: 200 });

/** A table row's header row (its column names), when its table has one. */
function tableHeaderOf(row: Element): Element | undefined {
  if (row.name !== 'tr') return undefined;
  let table = parentElement(row);
  while (table && table.name !== 'table') table = parentElement(table);
  return table ? selectIn('tr:has(> th)', table)[0] : undefined;
}

/** An element's start tag with what names it (id, class), for a line of page facts. */
function startTag(element: Element): string {
  const id = attr(element, 'id');
  const classes = attr(element, 'class');
  return `<${element.name}${id ? ` id="${id.slice(0, 80)}"` : ''}${classes ? ` class="${classes.slice(0, 120)}"` : ''}>`;
}

/** The regions of the page, most useful first: the named section, the proposal's regions in its order, other groups. */
export function pageRegions(
  input: { pageHtml: string; sectionHtml: string; selector: string },
  proposal: Field[],
  sectionChars = MAX_SECTION_SAMPLE_CHARS,
): PageRegion[] {
  const doc = parseHtml(input.pageHtml || input.sectionHtml);
  const narrowed = isNarrowed(input.selector);
  // The whole page, as the engine reads a body section's top-level fields (the title in the head included).
  let roots: AnyNode[] = narrowed ? sectionRoots(doc, input.selector) : [doc];
  if (roots.length === 0) roots = parseHtml(input.sectionHtml).children;
  const regions: PageRegion[] = [];
  // The named section as an overview (its repeats folded hard): the regions inside it follow with their samples.
  const overview = Math.min(sectionChars, MAX_SECTION_SAMPLE_CHARS);
  if (narrowed)
    regions.push({
      what: 'the section you chose',
      selector: input.selector,
      sample: cleanHtml(input.sectionHtml, { maxChars: overview, keepRepeated: 2, maxTextChars: 120 }),
    });

  const facts: string[] = [];
  const sampled = new Set<Element>();
  for (const field of proposal) {
    const region = regionOf(field, roots, sampled);
    if (region && 'fact' in region) facts.push(region.fact);
    else if (region) regions.push(region);
  }
  if (facts.length > 0)
    regions.push({ what: 'page facts (headings, labels, metadata)', selector: '(per field)', sample: facts.join('\n') });
  return [...regions, ...otherGroups(roots, sampled)];
}

/** The page's repeated groups the proposal left out (menus, link lists, a list it did not recognise). */
function otherGroups(roots: AnyNode[], sampled: Set<Element>): PageRegion[] {
  const regions: PageRegion[] = [];
  for (const group of candidateSections(roots, 8)) {
    const [container] = fieldMatches(roots, group.selector).elements;
    if (!container) continue;
    const items = container.children.filter((child): child is Element => 'attribs' in child);
    if (items.some((item) => sampled.has(item))) continue;
    const sample = items
      .slice(0, SAMPLE_ITEMS)
      .map((item) => compact(outer(item), MAX_ITEM_CHARS))
      .join('\n');
    regions.push({ what: `repeated group of ${group.items} × ${group.item}`, selector: group.selector, sample });
  }
  return regions;
}

/** A field of the proposal as a region (lists, tables, blocks) or as one line of page facts (scalars). */
function regionOf(field: Field, roots: AnyNode[], sampled: Set<Element>): PageRegion | { fact: string } | undefined {
  if (field.selector === undefined) return undefined;
  let found;
  try {
    found = fieldMatches(roots, field.selector, { all: field.type === 'array' });
  } catch {
    return undefined;
  }
  const [first] = found.elements;
  if (!first) return undefined;
  if (field.type === 'array') {
    for (const item of found.elements) sampled.add(item);
    const header = tableHeaderOf(first);
    const sample = [...(header && !sampled.has(header) ? [header] : []), ...found.elements.slice(0, SAMPLE_ITEMS)]
      .map((item) => compact(outer(item), MAX_ITEM_CHARS))
      .join('\n');
    return { what: `list of ${found.elements.length} items`, selector: field.selector, proposedAs: field.name, sample };
  }
  if (field.type === 'object') {
    sampled.add(first);
    return { what: 'block', selector: field.selector, proposedAs: field.name, sample: compact(outer(first), MAX_ITEM_CHARS * 2) };
  }
  // A fact is shown as the element that holds it and the value read there, not the element's whole HTML (`html[lang]`).
  const value = (field.attribute ? (attr(first, field.attribute) ?? '') : textOf(first)).replace(/\s+/g, ' ').trim();
  const shown = value.length > MAX_FACT_CHARS ? `${value.slice(0, MAX_FACT_CHARS)}…` : value;
  const attribute = field.attribute ? ` @${field.attribute}` : '';
  return { fact: `${field.name}: \`${field.selector}\`${attribute} → ${startTag(first)} ${JSON.stringify(shown)}` };
}

/** One region as the prompt shows it. */
export function regionText(region: PageRegion, index: number): string {
  const proposed = region.proposedAs ? `, proposed as \`${region.proposedAs}\`` : '';
  return `### ${index + 1}. ${region.what}: \`${region.selector}\`${proposed}\n${region.sample}`;
}

/**
 * The regions that fit in `budgetChars`, in order: a region that does not fit whole is shown with its sample
 * cut to the room left (when that room is worth it), and the rest are named in one line as left out.
 */
export function regionsWithin(regions: PageRegion[], budgetChars: number): string {
  const parts: string[] = [];
  let used = 0;
  let left = 0;
  for (const region of regions) {
    let text = regionText(region, parts.length);
    if (used + text.length + 1 > budgetChars) {
      const room = budgetChars - used - (text.length - region.sample.length) - 1;
      if (room < 400) {
        left += 1;
        continue;
      }
      text = regionText({ ...region, sample: compact(region.sample, room) }, parts.length);
    }
    parts.push(text);
    used += text.length + 1;
  }
  if (left > 0) parts.push(`(${left} more region${left === 1 ? '' : 's'} left out to stay within the token budget)`);
  return parts.join('\n');
}
