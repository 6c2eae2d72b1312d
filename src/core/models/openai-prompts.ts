import { FIELD_TYPES, SCALAR_TYPES, type Field } from '../config/index.js';

/**
 * What pagejson says to an OpenAI-compatible model, and the JSON Schema its structured output must follow.
 * Strict structured outputs require every property to be listed in `required` and
 * `additionalProperties: false`; optional values are therefore nullable and nulls are dropped on reading.
 */

const nullableString = { type: ['string', 'null'] };

export const STRUCTURE_RESPONSE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['structure'],
  properties: { structure: { type: 'array', items: { $ref: '#/$defs/field' } } },
  $defs: {
    field: {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'type', 'selector', 'attribute', 'transform', 'description', 'items', 'fields'],
      properties: {
        name: { type: 'string', description: 'camelCase name of the JSON property' },
        type: { type: 'string', enum: [...FIELD_TYPES] },
        selector: { ...nullableString, description: 'CSS selector; relative to the enclosing array item or object for nested fields' },
        attribute: { ...nullableString, description: 'attribute to read (href, src, content, datetime); null for the text' },
        transform: { type: ['array', 'null'], items: { type: 'string' } },
        description: nullableString,
        items: {
          anyOf: [
            {
              type: 'object',
              additionalProperties: false,
              required: ['type', 'attribute'],
              properties: { type: { type: 'string', enum: [...SCALAR_TYPES] }, attribute: nullableString },
            },
            { type: 'null' },
          ],
        },
        fields: { anyOf: [{ type: 'array', items: { $ref: '#/$defs/field' } }, { type: 'null' }] },
      },
    },
  },
} as const;

export const GENERATE_SYSTEM_PROMPT = [
  'You design JSON APIs for web pages. You get a proposal from a heuristic analysis of a page section (fields with CSS',
  'selectors, verified on the page) and the regions it found, each with its selector and an HTML sample (or a small page',
  'whole). Start from the proposal: keep the fields the user wants, name them well, add what the samples show it missed.',
  'Rules:',
  '- Field types: string, number, integer, boolean, url, date, object, array.',
  '- A repeated region (list items, cards, table rows) is an array whose selector matches each item and whose',
  '  `fields` have selectors relative to one item. An array of plain values uses `items` instead of `fields`.',
  "- Top-level selectors are matched inside the section. Keep the proposal's selectors unless a sample shows a better one;",
  '  prefer stable classes and ids over positions.',
  '- `attribute` reads an attribute (href for links, src for images, datetime, content); null reads the text.',
  '- `transform` is a list from: trim, number, integer, boolean, absoluteUrl, date, availability, plainText, regex:<pattern with one',
  '  group>, json:<dotted.path>. Use number for prices, absoluteUrl for links and images, availability for stock words.',
  '- Use a null selector only for a value that no element holds (it will be filled by a model later).',
  '- Field names are camelCase, unique within their level. Follow the extraction rule when one is given.',
  '- Reply with only the JSON object {"structure": [...]}: no prose, no code fence, not the schema.',
].join('\n');

export interface GeneratePromptInput {
  /** The heuristic's verified proposal, a line per field (openai-view.ts). */
  proposal: string;
  /** The regions of the page within the budget (page-regions.ts), or the whole cleaned section of a small page. */
  page: string;
  shows: 'regions' | 'section';
  pageUrl: string;
  selector: string;
  rule: string | null;
}

export function generateUserPrompt(input: GeneratePromptInput): string {
  return [
    `Page URL: ${input.pageUrl}`,
    `Section selector: ${input.selector}`,
    `Extraction rule: ${input.rule ?? '(none: propose the data a user of this page would want)'}`,
    'Proposal (verified on the page; selectors of fields under an array are relative to one item):',
    input.proposal,
    input.shows === 'regions' ? 'Regions of the page:' : 'Section HTML (whole, cleaned):',
    input.page,
  ].join('\n');
}

/** Without structured outputs (json_object, plain prompt), the schema the reply must follow is said in the prompt. */
export function schemaInstruction(schema: Record<string, unknown>): string {
  return [
    'Your reply must be one JSON object valid against this JSON Schema (an answer, not the schema):',
    '```json',
    JSON.stringify(schema),
    '```',
  ].join('\n');
}

export const FILL_SYSTEM_PROMPT = [
  'You extract data from the HTML of a web page section. Reply with one JSON object that follows the given JSON',
  'Schema exactly: one property per requested field, null when the page does not hold the value.',
].join('\n');

export function fillUserPrompt(input: { cleanedHtml: string; pageUrl: string; fields: Field[]; rule: string | null }): string {
  const fieldLines = input.fields.map((f) => `- ${f.name} (${f.type})${f.description ? `: ${f.description}` : ''}`);
  return [
    `Page URL: ${input.pageUrl}`,
    `Extraction rule: ${input.rule ?? '(none)'}`,
    'Fields:',
    ...fieldLines,
    'Section HTML:',
    input.cleanedHtml,
  ].join('\n');
}

export function retryPrompt(problem: string): string {
  return `Your reply was not valid: ${problem}. Reply again with only the JSON object, following the schema exactly.`;
}

/** A reply repeated in the correction is cut here: the correction must stay within the token budget. */
export const MAX_ECHOED_REPLY_CHARS = 2_000;

/** Strict output carries nulls for absent values; the config format leaves them out. */
export function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (value && typeof value === 'object') {
    const out = Object.create(null) as Record<string, unknown>;
    for (const [key, inner] of Object.entries(value)) if (inner !== null) out[key] = dropNulls(inner);
    return out;
  }
  return value;
}
