import type { Field } from '../config/index.js';
import { cleanHtml, TRUNCATION_MARKER } from './html-cleaner.js';
import { proposeStructure } from './heuristic/index.js';
import { pageRegions, regionsWithin } from './page-regions.js';
import type { GenerateInput } from './types.js';

/**
 * What a generating model is shown of the page, within `roomChars` (docs/models.md, "What the model sees"):
 * the heuristic's verified proposal in a line per field, then the page's regions with their selectors and
 * samples. When the whole cleaned section fits and is no longer than the regions would be (a small page), it
 * is shown whole instead: the model then sees everything, for no more tokens.
 */
export interface GenerateView {
  proposal: string;
  page: string;
  /** What `page` holds: `regions`, or the `section` whole. */
  shows: 'regions' | 'section';
}

export function generateView(input: GenerateInput, roomChars: number): GenerateView {
  const fields = heuristicProposal(input);
  const proposal = proposalWithin(fields, Math.floor(roomChars / 3));
  const room = Math.max(0, roomChars - proposal.length);
  const regions = fields.length > 0 ? regionsOf(input, fields, room) : '';
  const section = cleanHtml(input.sectionHtml, { maxChars: room });
  const whole = !section.endsWith(TRUNCATION_MARKER);
  if (regions === '' || (whole && section.length <= regions.length)) return { proposal, page: section, shows: 'section' };
  return { proposal, page: regions, shows: 'regions' };
}

/** The regions within `room`, or none when the page cannot be read for them (the section is shown instead). */
function regionsOf(input: GenerateInput, fields: Field[], room: number): string {
  try {
    return regionsWithin(pageRegions(input, fields, Math.floor(room / 3)), room);
  } catch {
    return '';
  }
}

/**
 * The heuristic's proposal for the page (all it finds: the rule is the model's to apply). Should the analysis
 * fail on a page, the model is shown the cleaned section alone, as before there was a proposal to start from.
 */
function heuristicProposal(input: GenerateInput): Field[] {
  try {
    return proposeStructure({ ...input, rule: null }).structure;
  } catch {
    return [];
  }
}

/** One field in a line: `- name (type) "selector" @attribute [transforms]`, its fields indented under it. */
function fieldLines(field: Field, depth: number): string[] {
  const parts = [`${'  '.repeat(depth)}- ${field.name} (${field.type})`];
  if (field.selector !== undefined) parts.push(JSON.stringify(field.selector));
  if (field.attribute) parts.push(`@${field.attribute}`);
  if (field.transform?.length) parts.push(`[${field.transform.join(', ')}]`);
  if (field.items) parts.push(`items: ${field.items.type}${field.items.attribute ? ` @${field.items.attribute}` : ''}`);
  return [parts.join(' '), ...(field.fields ?? []).flatMap((child) => fieldLines(child, depth + 1))];
}

/** The proposal in a line per field, its first fields only when the whole does not fit in `maxChars`. */
export function proposalWithin(proposal: Field[], maxChars: number): string {
  if (proposal.length === 0) return '(none: the analysis found nothing to propose)';
  const lines: string[] = [];
  let kept = 0;
  for (const field of proposal) {
    const next = fieldLines(field, 0);
    if ([...lines, ...next].join('\n').length > maxChars) break;
    lines.push(...next);
    kept += 1;
  }
  if (kept < proposal.length) lines.push(`(${proposal.length - kept} more proposed fields left out)`);
  return lines.join('\n');
}
