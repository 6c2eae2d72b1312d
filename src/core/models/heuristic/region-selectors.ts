import { groupSelector, isInside, selectIn, stableClasses, uniqueSelector } from '../../extract/index.js';
import { insideAny, type Group } from './item-groups.js';
import type { DetectContext } from './types.js';

/** Selectors of regions, and how two regions relate (nested, sharing items). */

/** `ancestor > div > section`: the path below the ancestor, by tag, with the item's shared class when it has one. */
function spreadSelector(group: Group, context: DetectContext): string | null {
  const path = group.path!;
  const base = `${uniqueSelector(group.parent, context.sectionRoots)} > ${path.join(' > ')}`;
  const shared = stableClasses(group.items[0]!).filter((cls) => group.items.every((item) => stableClasses(item).includes(cls)));
  const candidates = [...shared.map((cls) => `${base}.${cls.replace(/([^A-Za-z0-9_-])/g, '\\$1')}`), base];
  const wanted = new Set(group.items);
  for (const candidate of candidates) {
    const found = selectIn(candidate, context.sectionRoots);
    if (found.length === group.items.length && found.every((element) => wanted.has(element))) return candidate;
  }
  return null;
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

/** The selector that picks exactly a region's items, or null. */
export function regionSelector(group: Group, context: DetectContext): string | null {
  return group.path ? spreadSelector(group, context) : groupSelector(group.items, context.sectionRoots);
}
