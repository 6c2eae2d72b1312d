import { parse, type Selector } from 'css-what';

/**
 * Selectors whose cost has no useful bound are refused at `validate`, before any page meets them. Measured on
 * a flat list (css-select 7): `li:has(+ li)` takes 6.4 s on 20,000 items and `li:has(~ li ~ li ~ li .x)` 6 s
 * on an ordinary listing, because a relational pseudo-class that looks at siblings re-walks the sibling chain
 * for every candidate, once per combinator. `:has()` over descendants (`li:has(> a)`, `li:has(span)`) costs
 * one walk of the element's subtree and stays linear in practice; `:nth-child()` and friends are quadratic
 * only in the number of siblings and stay inside the extraction budget on real pages, so they are allowed.
 *
 * Refused: inside `:has()`, a sibling combinator (`+`, `~`) or another relational pseudo-class; and a
 * selector of more than MAX_SELECTOR_LENGTH characters or MAX_COMPOUNDS compound selectors.
 */
export const MAX_SELECTOR_LENGTH = 1_000;
export const MAX_COMPOUNDS = 32;

const RELATIONAL = new Set(['has']);
const SIBLING = new Set(['adjacent', 'sibling']);
// Pseudo-classes whose argument is itself a selector list, walked for nested `:has()`.
const SELECTOR_ARGUMENT = new Set(['has', 'not', 'is', 'matches', 'where', 'any']);

/** null when the selector's cost is bounded, else why it is refused. */
export function selectorCostProblem(selector: string): string | null {
  if (selector.length > MAX_SELECTOR_LENGTH) return `the selector is longer than ${MAX_SELECTOR_LENGTH} characters`;
  let parsed: Selector[][];
  try {
    parsed = parse(selector);
  } catch {
    return null; // a selector that does not parse is reported by the parser check
  }
  let compounds = 0;
  const walk = (lists: Selector[][], insideHas: boolean): string | null => {
    for (const list of lists) {
      compounds += 1;
      for (const token of list) {
        if (token.type === 'descendant' || token.type === 'child' || SIBLING.has(token.type)) compounds += 1;
        if (insideHas && SIBLING.has(token.type))
          return `":has()" over siblings ("${token.type === 'adjacent' ? '+' : '~'}") re-walks the sibling chain for every element: its cost grows with the square of the page`;
        if (token.type !== 'pseudo' || !SELECTOR_ARGUMENT.has(token.name) || !Array.isArray(token.data)) continue;
        const relational = RELATIONAL.has(token.name);
        if (relational && insideHas) return '":has()" inside ":has()" multiplies the cost of both: its cost has no useful bound';
        const problem = walk(token.data, insideHas || relational);
        if (problem) return problem;
      }
    }
    return null;
  };
  const problem = walk(parsed, false);
  if (problem) return problem;
  if (compounds > MAX_COMPOUNDS) return `the selector has more than ${MAX_COMPOUNDS} parts`;
  return null;
}
