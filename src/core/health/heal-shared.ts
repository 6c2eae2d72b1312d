import type { Field } from '../config/index.js';
import type { AnyNode } from 'domhandler';
import { selectIn, type Element } from '../extract/index.js';

/**
 * What a repair keeps of the fields it repairs (issue 33 item 5):
 *
 * - guards: a selector that says what not to read (`.price:not(del *)`, the price that is not struck out) keeps
 *   saying it: the guard is added to the repaired selector wherever the guarded selector still reads the same
 *   element, so the struck-out price is not read the day the page shows one where the repair saw none;
 * - fields that read one element: fields that shared a selector before (a product's `currency` read from its
 *   `price`'s element, a list's `title` and `url` from one link) share the repaired one, so a field whose own
 *   value could not be anchored (an attribute, a code not on the page as text) is repaired with its partner.
 */
const GUARD = /:not\((?:[^()]|\([^()]*\))*\)/g;

/** The `:not(...)` guards of a selector's last compound (what it reads), as written. */
export function guardsOf(selector: string | undefined): string[] {
  if (!selector || selector.includes(',')) return [];
  // The last compound: after the last combinator outside parentheses.
  let depth = 0;
  let start = 0;
  for (let at = 0; at < selector.length; at += 1) {
    const char = selector[at]!;
    if (char === '(') depth += 1;
    else if (char === ')') depth -= 1;
    else if (depth === 0 && (char === ' ' || char === '>' || char === '+' || char === '~')) start = at + 1;
  }
  return selector.slice(start).match(GUARD) ?? [];
}

/** `selector` with the old selector's guards, when the guarded selector still reads what `selector` reads. */
export function withGuards(old: string | undefined, selector: string, stillReads: (candidate: string) => boolean): string {
  const missing = guardsOf(old).filter((guard) => !selector.includes(guard));
  if (missing.length === 0 || selector.includes(',')) return selector;
  const guarded = `${selector}${missing.join('')}`;
  return stillReads(guarded) ? guarded : selector;
}

/** The first element `candidate` selects in each root equals the element the repair found there. */
export function readsFirst(candidate: string, places: Array<{ root: AnyNode | AnyNode[]; element: Element }>): boolean {
  try {
    return places.every(({ root, element }) => selectIn(candidate, root)[0] === element);
  } catch {
    return false;
  }
}

/**
 * Fields of one level after a repair: a field the repair left as it was takes the repaired selector of a
 * field that read the same element before (same old selector), when that one was repaired.
 */
export function shareRepairedSelectors(
  old: Field[],
  healed: Field[],
  path: (field: Field) => string,
  context: { repaired: string[]; unrepaired: string[]; shared?: Set<string> },
): Field[] {
  return healed.map((field, index) => {
    const before = old[index]!;
    if (field.selector !== before.selector || before.selector === undefined) return field;
    const partner = healed.find(
      (other, at) => at !== index && old[at]!.selector === before.selector && other.selector !== before.selector && other.selector,
    );
    if (!partner?.selector) return field;
    context.repaired.push(path(field));
    context.shared?.add(path(field));
    context.unrepaired.splice(0, context.unrepaired.length, ...context.unrepaired.filter((entry) => entry !== path(field)));
    return { ...field, selector: partner.selector };
  });
}
