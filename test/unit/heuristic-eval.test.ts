import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createHeuristicModel } from '../../src/core/models/heuristic/index.js';
import { compileStructure, selectSection } from '../../src/core/extract/engine/index.js';

/**
 * The heuristic model's measured quality (docs/decisions.md, "Heuristic model quality threshold").
 * Each case is a realistic page plus the values a user would want from it. The model proposes a structure,
 * the structure engine extracts with it exactly as retrieval would, and the extracted leaf values are
 * compared with the expected ones:
 *   recall    = expected values found among the extracted values / expected values
 *   precision = extracted values that are expected or listed as also useful / extracted values
 * Values are compared as sets after normalisation (numbers numerically, text case- and space-insensitively).
 */

const EVAL_DIR = fileURLToPath(new URL('../fixtures/eval/', import.meta.url));
const MEAN_RECALL_MIN = 0.85;
const PAGE_RECALL_MIN = 0.4;
const MEAN_PRECISION_MIN = 0.8;

interface EvalCase {
  url: string;
  selector: string;
  rule: string | null;
  expected: unknown;
  alsoUseful?: unknown[];
}

export function leaves(value: unknown, out: unknown[] = []): unknown[] {
  if (value === null || value === undefined || value === '') return out;
  if (Array.isArray(value)) for (const item of value) leaves(item, out);
  else if (typeof value === 'object') for (const item of Object.values(value as Record<string, unknown>)) leaves(item, out);
  else out.push(value);
  return out;
}

export function normalise(value: unknown): string {
  if (typeof value === 'number') return `n:${Number(value.toFixed(6))}`;
  let text = String(value).normalize('NFKC').replace(/\s+/g, ' ').trim();
  // URLs compare as a reader sees them: the engine percent-encodes `São_Paulo`, a person writes it plainly.
  if (/^https?:\/\//.test(text)) {
    try {
      text = decodeURI(text);
    } catch {
      // keep it encoded
    }
  }
  if (/^-?\d+(\.\d+)?$/.test(text)) return `n:${Number(Number(text).toFixed(6))}`;
  return `s:${text.toLowerCase()}`;
}

export interface Score {
  recall: number;
  precision: number;
  missing: string[];
  unexpected: string[];
}

export function score(extracted: unknown, testCase: EvalCase): Score {
  const expected = new Set(leaves(testCase.expected).map(normalise));
  const acceptable = new Set([...expected, ...leaves(testCase.alsoUseful ?? []).map(normalise)]);
  const got = new Set(leaves(extracted).map(normalise));
  const missing = [...expected].filter((value) => !got.has(value));
  const unexpected = [...got].filter((value) => !acceptable.has(value));
  return {
    recall: expected.size === 0 ? 1 : (expected.size - missing.length) / expected.size,
    precision: got.size === 0 ? 0 : (got.size - unexpected.length) / got.size,
    missing,
    unexpected,
  };
}

const cases = readdirSync(EVAL_DIR, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

async function runCase(name: string) {
  const html = readFileSync(join(EVAL_DIR, name, 'page.html'), 'utf8');
  const testCase = JSON.parse(readFileSync(join(EVAL_DIR, name, 'expected.json'), 'utf8')) as EvalCase;
  const { sectionHtml } = selectSection(html, testCase.selector);
  const { structure } = await createHeuristicModel().generate({
    sectionHtml,
    pageHtml: html,
    pageUrl: testCase.url,
    selector: testCase.selector,
    rule: testCase.rule,
  });
  const { data } = compileStructure({ selector: testCase.selector, structure }).extract(html, testCase.url);
  return { name, structure, data, ...score(data, testCase) };
}

describe('heuristic model quality on the evaluation pages', () => {
  it('has at least 15 evaluation pages', () => {
    expect(cases.length).toBeGreaterThanOrEqual(15);
  });

  it(`reaches mean recall ≥ ${MEAN_RECALL_MIN}, every page ≥ ${PAGE_RECALL_MIN}, mean precision ≥ ${MEAN_PRECISION_MIN}`, async () => {
    const results = [];
    for (const name of cases) results.push(await runCase(name));
    const rows = results.map(
      (result) => `${result.name.padEnd(28)} ${result.recall.toFixed(2).padStart(6)} ${result.precision.toFixed(2).padStart(9)}`,
    );
    const meanRecall = results.reduce((sum, result) => sum + result.recall, 0) / results.length;
    const meanPrecision = results.reduce((sum, result) => sum + result.precision, 0) / results.length;
    console.log(
      [
        'case                         recall precision',
        ...rows,
        `${'mean'.padEnd(28)} ${meanRecall.toFixed(2).padStart(6)} ${meanPrecision.toFixed(2).padStart(9)}`,
      ].join('\n'),
    );
    if (process.env.HEURISTIC_EVAL_DEBUG)
      for (const result of results)
        console.log(
          result.name,
          JSON.stringify({ structure: result.structure, missing: result.missing, unexpected: result.unexpected }, null, 1),
        );
    const weak = results
      .filter((result) => result.recall < PAGE_RECALL_MIN)
      .map((result) => `${result.name}: missing ${result.missing.slice(0, 5).join(', ')}`);
    expect(weak).toEqual([]);
    expect(meanRecall).toBeGreaterThanOrEqual(MEAN_RECALL_MIN);
    expect(meanPrecision).toBeGreaterThanOrEqual(MEAN_PRECISION_MIN);
  });
});
