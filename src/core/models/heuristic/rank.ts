import type { Field } from '../../config/index.js';
import { isKnownFieldWord, nameFromText, pluralize, splitWords } from './naming.js';
import type { Proposal, ProposalKind } from './types.js';

/**
 * Orders the proposals and applies the rule. Without a rule: page facts first (metadata, heading, schema.org
 * objects), then repeated regions by score, then tables. The rule's words are keyword hints: proposals that
 * match them come first and unrelated ones are dropped; with "only", unrelated fields inside are dropped too.
 */

const KIND_ORDER: Record<ProposalKind, number> = { metadata: 0, heading: 1, jsonld: 2, microdata: 3, items: 4, table: 5 };

const STOP_WORDS = new Set([
  'a',
  'an',
  'the',
  'and',
  'or',
  'of',
  'for',
  'from',
  'in',
  'on',
  'to',
  'with',
  'without',
  'all',
  'each',
  'every',
  'their',
  'its',
  'get',
  'extract',
  'give',
  'return',
  'list',
  'show',
  'want',
  'need',
  'me',
  'i',
  'please',
  'only',
  'just',
  'page',
  'also',
  'plus',
  'is',
  'are',
  'be',
  'as',
  'by',
  'data',
  'json',
  'field',
  'fields',
  'keep',
  'include',
  'them',
  'it',
  'this',
  'that',
  'these',
]);

export function stem(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

export interface RuleHints {
  keywords: string[];
  only: boolean;
}

export function parseRule(rule: string | null): RuleHints {
  if (!rule) return { keywords: [], only: false };
  const words = splitWords(rule);
  const keywords = [...new Set(words.filter((word) => !STOP_WORDS.has(word) && word.length > 1).map(stem))];
  return { keywords, only: /\b(only|just)\b/i.test(rule) };
}

/** A keyword matches a text when a word of it has the same stem, starts with it, or is a synonym (cost, price). */
function matches(keyword: string, text: string): boolean {
  const canonical = nameFromText(keyword);
  return splitWords(text).some((word) => {
    const stemmed = stem(word);
    return (
      stemmed === keyword ||
      (keyword.length >= 4 && stemmed.startsWith(keyword)) ||
      (canonical !== null && nameFromText(stemmed) === canonical)
    );
  });
}

function fieldMatches(field: Field, keywords: string[]): boolean {
  return keywords.some((keyword) => matches(keyword, field.name) || nameFromText(keyword) === field.name);
}

function matchCount(proposal: Proposal, keywords: string[]): number {
  const names = [proposal.field.name, ...(proposal.field.fields ?? []).map((field) => field.name)].join(' ');
  return keywords.filter(
    (keyword) =>
      matches(keyword, `${names} ${proposal.hints}`) ||
      (proposal.field.fields ?? [proposal.field]).some((field) => fieldMatches(field, [keyword])),
  ).length;
}

function byDefaultOrder(a: Proposal, b: Proposal): number {
  // Furniture offered anyway always comes after the page's own data.
  return Number(a.trailing === true) - Number(b.trailing === true) || KIND_ORDER[a.kind] - KIND_ORDER[b.kind] || b.score - a.score;
}

export function rankProposals(proposals: Proposal[], rule: string | null): Field[] {
  const { keywords, only } = parseRule(rule);
  const ordered = [...proposals].sort(byDefaultOrder);
  if (keywords.length === 0) return ordered.map((proposal) => proposal.field);

  const scored = ordered.map((proposal) => ({ proposal, count: matchCount(proposal, keywords) }));
  const best = Math.max(...scored.map(({ count }) => count));
  if (best === 0) return ordered.map((proposal) => proposal.field);
  // Lists are what a rule usually describes ("book titles and prices"): on a tie they come first.
  const isList = (proposal: Proposal) => (proposal.field.type === 'array' ? 0 : 1);
  const kept = scored
    .filter(({ count }) => count > 0 && (only ? count === best : count * 2 >= best))
    .sort((a, b) => b.count - a.count || isList(a.proposal) - isList(b.proposal) || byDefaultOrder(a.proposal, b.proposal))
    .map(({ proposal }) => proposal);

  // A noun of the rule that is not a field word ("book" in "book titles and prices") names the main list.
  const noun = keywords.find(
    (keyword) =>
      !isKnownFieldWord(keyword) &&
      /^[a-z]{3,}$/.test(keyword) &&
      !kept.some((proposal) => (proposal.field.fields ?? []).some((field) => fieldMatches(field, [keyword]))),
  );
  return kept.map((proposal, index) => {
    const field = proposal.field;
    if (!field.fields) return field;
    const matching = field.fields.filter((child) => fieldMatches(child, keywords));
    const others = field.fields.filter((child) => !fieldMatches(child, keywords));
    const fields = only && matching.length > 0 ? matching : [...matching, ...others];
    // The rule is the user's vocabulary: "books with their prices" names the list `books`, not `products`.
    const renamed = index === 0 && noun && field.type === 'array' && !matches(noun, field.name) ? pluralize(noun) : field.name;
    return { ...field, name: renamed, fields };
  });
}
