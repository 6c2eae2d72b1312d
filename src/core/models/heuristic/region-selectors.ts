import { elementChildren, groupSelector, isInside, selectIn, stableClasses, uniqueSelector, type Element } from '../../extract/index.js';
import { insideAny, isBlank, isPlaceholder, PLACEHOLDER_SELECTOR, type Group, type Stats } from './item-groups.js';
import type { DetectContext } from './types.js';

/**
 * Selectors of regions, and how two regions relate (nested, sharing items). A region's selector may also pick
 * blank elements beside its items (a carousel's empty spacer slide, a placeholder row): the structure engine
 * drops items that carry nothing, so the records come out the same, and a list is not lost for its spacers.
 */

/** The selector picks every item, and nothing else but blank elements. */
function selectsItems(selector: string, group: Group, context: DetectContext, stats: Map<Element, Stats>): boolean {
  const wanted = new Set(group.items);
  let found = 0;
  for (const element of selectIn(selector, context.sectionRoots)) {
    if (wanted.has(element)) found++;
    else if (!isBlank(element, stats)) return false;
  }
  return found === group.items.length;
}

/** `ancestor > div > section`: the path below the ancestor, by tag, with the item's shared class when it has one. */
function spreadSelector(group: Group, context: DetectContext, stats: Map<Element, Stats>): string | null {
  const ancestor = uniqueSelector(group.parent, context.sectionRoots);
  // Sections of one list: their items by container and item class, within the page or below their ancestor.
  if (group.members)
    return [group.members, `${ancestor} ${group.members}`].find((candidate) => selectsItems(candidate, group, context, stats)) ?? null;
  const base = `${ancestor} > ${group.path!.join(' > ')}`;
  const shared = stableClasses(group.items[0]!).filter((cls) => group.items.every((item) => stableClasses(item).includes(cls)));
  const candidates = [...shared.map((cls) => `${base}.${cls.replace(/([^A-Za-z0-9_-])/g, '\\$1')}`), base];
  return candidates.find((candidate) => selectsItems(candidate, group, context, stats)) ?? null;
}

/** Regions nested in each other or sharing items (either one's items inside the other's, or its parent). */
export function regionsOverlap(candidate: Group, other: Group): boolean {
  const otherItems = new Set(other.items);
  const candidateItems = new Set(candidate.items);
  return (
    candidate.items.some((item) => insideAny(item, otherItems)) ||
    other.items.some((item) => insideAny(item, candidateItems)) ||
    other.items.some((item) => item === candidate.parent || isInside(candidate.parent, item)) ||
    candidate.items.some((item) => item === other.parent || isInside(other.parent, item))
  );
}

/** Regions one of whose items lies inside (or is) an item of the other. */
export function regionsShareItems(candidate: Group, other: Group): boolean {
  return (
    candidate.items.some((item) => insideAny(item, new Set(other.items))) ||
    other.items.some((item) => insideAny(item, new Set(candidate.items)))
  );
}

/** The selector that picks a region's items (and blank elements at most), or null. */
export function regionSelector(group: Group, context: DetectContext, stats: Map<Element, Stats>): string | null {
  if (group.path || group.members) return spreadSelector(group, context, stats);
  const exact = groupSelector(group.items, context.sectionRoots);
  if (exact) return exact;
  // Siblings of the items' tag left out of the group for being blank may be picked with them.
  const items = new Set(group.items);
  const withBlanks = elementChildren(group.parent).filter(
    (child) => items.has(child) || (child.name === group.items[0]!.name && isBlank(child, stats)),
  );
  if (withBlanks.length > group.items.length) {
    const selector = groupSelector(withBlanks, context.sectionRoots);
    if (selector) return selector;
  }
  // Siblings left out for being loading placeholders are left out by the selector too.
  const withPlaceholders = elementChildren(group.parent).filter(
    (child) => items.has(child) || (child.name === group.items[0]!.name && isPlaceholder(child, stats)),
  );
  if (withPlaceholders.length === group.items.length) return null;
  const all = groupSelector(withPlaceholders, context.sectionRoots);
  const loaded = all && `${all}:not(${PLACEHOLDER_SELECTOR}):not(:has(${PLACEHOLDER_SELECTOR}))`;
  return loaded && selectsItems(loaded, group, context, stats) ? loaded : null;
}
