import type { Element } from '../../extract/index.js';
import type { Field } from '../../config/index.js';
import { itemFields } from './item-fields.js';
import { candidateGroups, isBlank, MIN_ITEMS, subtreeStats } from './item-groups.js';
import { looseFields } from './loose-fields.js';
import { NameSet } from './naming.js';
import { isChrome, isLinkList, mainFirstScores, scoreGroups, TEXT_LIST, textListField } from './region-kinds.js';
import { arrayName, headingName } from './region-names.js';
import { regionSelector, regionsOverlap, regionsShareItems } from './region-selectors.js';
import type { DetectContext, Proposal } from './types.js';

/**
 * Repeated item regions: sibling elements sharing a tag and a class (or just a tag), at least three, such as
 * product cards, search results, job or property listings, forum posts. Each becomes an array of objects.
 * Finding candidates is one pass over the section; only the most promising few get the costlier field analysis.
 */

const ANALYSED_GROUPS = 12;
const KEPT_GROUPS = 3;
const MIN_TRAILING_ITEMS = 10;

/** The fields by path, with the title, link and image they lack read by role, and the record's text. */
function withLooseFields(items: Element[], fields: Field[]): Field[] {
  const loose = looseFields(items, fields);
  if (loose.length === 0) return fields;
  const isWholeText = (field: Field) => field.selector === ':scope' && field.attribute === undefined;
  const wholeText = fields.find(isWholeText) ?? {
    name: fields.some((field) => field.name === 'text') ? 'fullText' : 'text',
    type: 'string',
    selector: ':scope',
  };
  return [...loose, ...fields.filter((field) => !isWholeText(field)), wholeText];
}

export function detectRepeatedItems(context: DetectContext): Proposal[] {
  const elements = context.sectionElements;
  const stats = subtreeStats(elements);
  const scored = scoreGroups(candidateGroups(elements, stats), stats);
  // The best-scored few, and always the region with the most items (it may be offered last, see below).
  const prescored = scored.slice(0, ANALYSED_GROUPS);
  const largest = [...scored].sort((a, b) => b.group.items.length - a.group.items.length)[0];
  if (largest && !prescored.includes(largest)) prescored.push(largest);

  const analysed = prescored
    .map(({ group, score }) => {
      // Empty spacers between records (no text, no link, no image) say nothing about the records' fields; the
      // extraction leaves them out too (an item whose fields are all empty is dropped).
      const records = group.items.filter((item) => !isBlank(item, stats));
      const analysedItems = records.length >= MIN_ITEMS ? records : group.items;
      const { fields: byPath, hints } = itemFields(analysedItems);
      // Sections of one list may each lay their records out otherwise: what paths miss is read by role.
      const fields = group.path || group.members ? withLooseFields(analysedItems, byPath) : byPath;
      const weak = isChrome(group.parent) || isLinkList(fields, group.items, stats);
      // The record's whole text (offered when the fields miss much of it) says nothing about its structure.
      const structured = fields.filter((field) => field.selector !== ':scope' || field.attribute !== undefined).length;
      return { group, fields, hints, weak, structured, score: score * Math.min(structured, 6) * (weak ? 0.1 : 1) };
    })
    // One field is not a record; such items are read as a list of texts when they are just text.
    .map((candidate) => (candidate.structured >= 2 ? candidate : { ...candidate, fields: textListField(candidate.group.items) }))
    .filter(({ fields }) => fields.length > 0)
    .sort((a, b) => b.score - a.score);

  const kept: Array<(typeof analysed)[number] & { selector: string }> = [];
  for (const candidate of analysed) {
    if (kept.length >= KEPT_GROUPS || candidate.score < (kept[0]?.score ?? 0) * 0.1) break;
    // Regions nested in each other describe the same content twice: the better-scored one stays.
    // So do regions sharing items (a spread region and one of its containers' groups).
    if (kept.some((other) => regionsOverlap(candidate.group, other.group))) continue;
    // A region without a selector that picks exactly its items cannot be offered, and must not hide others.
    const selector = regionSelector(candidate.group, context, stats);
    if (selector) kept.push({ ...candidate, selector });
  }

  // The page's largest region (often furniture), when it outnumbers every region kept, is offered last (see
  // Proposal.trailing).
  const largestKept = Math.max(0, ...kept.map((candidate) => candidate.group.items.length));
  const furniture = analysed
    .filter(
      (candidate) =>
        !kept.some((other) => other.group === candidate.group) &&
        candidate.group.items.length >= MIN_TRAILING_ITEMS &&
        candidate.group.items.length > largestKept,
    )
    .sort((a, b) => b.group.items.length - a.group.items.length || b.score - a.score);
  const trailing = new Set<Element[]>();
  for (const candidate of furniture) {
    if (kept.some((other) => regionsShareItems(candidate.group, other.group))) continue;
    const selector = regionSelector(candidate.group, context, stats);
    if (!selector) continue;
    kept.push({ ...candidate, selector });
    trailing.add(candidate.group.items);
    break;
  }

  // Named in the order offered, so that the main list gets the plain name.
  const scores = mainFirstScores(kept, stats);
  const ordered = kept.map((candidate, index) => ({ ...candidate, score: scores[index]! })).sort((a, b) => b.score - a.score);
  const proposals: Proposal[] = [];
  const names = new NameSet();
  for (const candidate of ordered) {
    const selector = candidate.selector;
    // Two regions named alike (`items`, `products`) are told apart by their headings before a number.
    const preferred = arrayName(candidate.group);
    const heading = names.has(preferred) ? headingName(candidate.group) : null;
    const name = names.take(heading && !names.has(heading) ? heading : preferred);
    const isTextList = candidate.fields.length === 1 && candidate.fields[0]!.name === TEXT_LIST;
    proposals.push({
      kind: 'items',
      field: isTextList
        ? { name, type: 'array', selector, items: { type: 'string' } }
        : { name, type: 'array', selector, fields: candidate.fields },
      score: candidate.score,
      hints: `${name} ${selector} ${candidate.hints}`,
      itemElements: candidate.group.items,
      weak: candidate.weak,
      ...(trailing.has(candidate.group.items) ? { trailing: true } : {}),
    });
  }
  return proposals;
}
