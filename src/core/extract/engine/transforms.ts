import type { ScalarType } from '../../config/index.js';
import { compileSafePattern, PatternProblem, type SafePattern } from '../../shared/index.js';
import { toAvailability } from './availability.js';
import { parseDateToIso } from './dates.js';
import { htmlToText } from './html-text.js';
import { parseJsonPath, resolveJsonPath } from './json-path.js';
import { parseLocaleNumber } from './numbers.js';
import { memoizeText } from './text-memo.js';

/**
 * Transforms turn the raw value (an attribute, or the element's text) into the field's value, in order;
 * then `coerceToType` makes it the field's type. Every step maps "nothing usable" to null, never throws.
 */

export interface TransformContext {
  /** The page's base URL (`<base href>` resolved against the final URL); computed only when needed. */
  baseUrl(): string;
  /** JSON.parse with a per-extraction memo: several fields usually read the same JSON-LD block. */
  parseJson(text: string): unknown;
}

export type CompiledTransform = (value: unknown, context: TransformContext) => unknown;

/** null when the transform is usable, else what is wrong with it. */
export function validateTransform(transform: string): string | null {
  try {
    compileTransform(transform);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** Compiles one transform (regexes and json paths are parsed once per config revision); throws when invalid. */
export function compileTransform(transform: string): CompiledTransform {
  if (transform.startsWith('regex:')) return compileRegex(transform.slice('regex:'.length));
  if (transform.startsWith('json:')) {
    const path = parseJsonPath(transform.slice('json:'.length));
    return (value, context) => {
      const parsed = typeof value === 'string' ? context.parseJson(value) : value;
      const found = resolveJsonPath(parsed, path);
      return found === undefined ? null : found;
    };
  }
  switch (transform) {
    case 'trim':
      return (value) => (typeof value === 'string' ? value.trim() : value);
    case 'number':
      return (value) => toNumber(value);
    case 'integer':
      return (value) => toInteger(value);
    case 'boolean':
      return (value) => toBoolean(value);
    case 'absoluteUrl':
      return (value, context) => toAbsoluteUrl(value, context.baseUrl());
    case 'date':
      return (value) => parseDateToIso(value);
    case 'availability':
      return (value) => toAvailability(value);
    case 'plainText':
      return (value) => (typeof value === 'string' ? htmlToText(value) : value);
    default:
      throw new Error(
        'unknown transform: use trim, number, integer, boolean, absoluteUrl, date, availability, plainText, regex:<pattern> or json:<path>',
      );
  }
}

/** On the linear-time engine (shared/safe-pattern.ts): a page's text must never make a transform slow. */
function compileRegex(pattern: string): CompiledTransform {
  if (pattern === '') throw new Error('the regex is empty');
  let regex: SafePattern;
  try {
    regex = compileSafePattern(pattern, 'transform');
  } catch (error) {
    if (error instanceof PatternProblem) throw new Error(`the regex ${error.message}`);
    throw error;
  }
  if (regex.groups !== 1) throw new Error(`the regex needs exactly one capture group, it has ${regex.groups}`);
  return (value) => {
    const text = scalarText(value);
    return text === null ? null : regex.firstGroup(text);
  };
}

export function applyTransforms(value: unknown, transforms: readonly CompiledTransform[], context: TransformContext): unknown {
  let current = value;
  for (const transform of transforms) {
    if (current === null || current === undefined) return null;
    current = transform(current, context);
  }
  return current ?? null;
}

/** The value as the field's type, or null when it cannot be one. Empty strings are null: nothing was there. */
export function coerceToType(value: unknown, type: ScalarType, context: TransformContext): unknown {
  const scalar = unwrapJsonValue(value);
  if (scalar === null) return null;
  switch (type) {
    case 'string': {
      const text = scalarText(scalar);
      return text === null || text === '' ? null : text;
    }
    case 'number':
      return toNumber(scalar);
    case 'integer':
      return toInteger(scalar);
    case 'boolean':
      return toBoolean(scalar);
    case 'url':
      return toWebUrl(scalar, context.baseUrl());
    case 'date':
      return parseDateToIso(scalar);
  }
}

/**
 * JSON values may arrive where a scalar is wanted: a one-element list, or a schema.org object such as
 * `brand: {"@type": "Brand", "name": "Acme"}` or `{"@value": "…"}`. Take the obvious scalar, else null.
 */
function unwrapJsonValue(value: unknown): unknown {
  let current = value;
  for (let depth = 0; depth < 4; depth++) {
    if (Array.isArray(current)) current = current.find((entry) => entry !== null && entry !== undefined) ?? null;
    else if (current !== null && typeof current === 'object') {
      const record = current as Record<string, unknown>;
      current = record['@value'] ?? record.name ?? record.url ?? record['@id'] ?? null;
    } else return current ?? null;
  }
  return null;
}

function scalarText(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return null;
}

const parseNumberText = memoizeText(parseLocaleNumber);

export function toNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string') return parseNumberText(value);
  return null;
}

/** Whole numbers are truncated toward zero, as parseInt would ("3.9 stars" → 3). */
export function toInteger(value: unknown): number | null {
  const number = toNumber(value);
  if (number === null) return null;
  const integer = Math.trunc(number);
  return Number.isSafeInteger(integer) ? integer : null;
}

const TRUE_WORDS = new Set([
  'true',
  'yes',
  'y',
  '1',
  'on',
  'instock',
  'available',
  'checked',
  'selected',
  'enabled',
  'active',
  'ja',
  'oui',
  'si',
  'sí',
]);
const FALSE_WORDS = new Set([
  'false',
  'no',
  'n',
  '0',
  'off',
  'outofstock',
  'soldout',
  'unavailable',
  'notavailable',
  'disabled',
  'inactive',
  'discontinued',
  'nein',
  'non',
]);
const FALSE_PHRASES = /\b(out of stock|sold out|unavailable|not available|discontinued)\b/i;
const TRUE_PHRASES = /\b(in stock|available)\b/i;

/** true/false/yes/no/1/0, schema.org availability (`https://schema.org/InStock`), "In stock (22 available)". */
export function toBoolean(value: unknown): boolean | null {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value === 1 ? true : value === 0 ? false : null;
  if (typeof value !== 'string') return null;
  const word = value
    .trim()
    .toLowerCase()
    .replace(/^.*[/#:]/, '')
    .replace(/[\s_-]+/g, '');
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  if (FALSE_PHRASES.test(value)) return false;
  if (TRUE_PHRASES.test(value)) return true;
  return null;
}

/** `<length of base>:<base><href>` (one string key, split by the length, whatever the two hold) to the absolute URL. */
const resolveUrlText = memoizeText((key) => {
  const colon = key.indexOf(':');
  const baseEnd = colon + 1 + Number(key.slice(0, colon));
  try {
    return new URL(key.slice(baseEnd), key.slice(colon + 1, baseEnd)).href;
  } catch {
    return null;
  }
});

/**
 * A `url` value is an http(s) URL or null: `javascript:`, `data:` and the like from a page must not reach API
 * consumers that put values into links (docs/security.md).
 */
function webUrl(url: string | null): string | null {
  return url !== null && (url.startsWith('https:') || url.startsWith('http:')) ? url : null;
}

/** A value as a `url` value: resolved against `baseUrl`, then an http(s) URL or null. */
export function toWebUrl(value: unknown, baseUrl: string): string | null {
  return webUrl(toAbsoluteUrl(value, baseUrl));
}

export function toAbsoluteUrl(value: unknown, baseUrl: string): string | null {
  if (typeof value !== 'string') return null;
  const trimmed = value.trim();
  if (trimmed === '') return null;
  return resolveUrlText(`${baseUrl.length}:${baseUrl}${trimmed}`);
}
