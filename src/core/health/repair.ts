import type { ApiConfig, Field } from '../config/index.js';
import { describeChanges, type ConfigChange } from '../edit/index.js';
import { HEURISTIC_MODEL, type Model, type TokenUsage } from '../models/index.js';
import { compileStructure, selectSection } from '../extract/index.js';
import { healStructure, recoveryOf, type HealResult } from './heal.js';
import { pageExpectation } from './paged-expectation.js';
import { checkRepair } from './repair-check.js';
import { underCurrentNames } from './renamed-data.js';
import { repairedPagination } from './pagination-repair.js';
import { modelFieldPaths, withoutModelFields, withoutModelValues } from './model-fields.js';
import { repairedLoadMore, repairedSection } from './reach-repair.js';

/**
 * A repair proposal for a config whose page changed: the heuristic's value anchoring, or, with an
 * OpenAI-compatible model, the model's selectors for the same fields. A model's proposal is always verified by
 * extraction, field by field, and the value-anchored repair stands in wherever the model's selector does not
 * bring the last good values back. Transport-free: the CLI's `heal` and the daemon's background repair use it.
 */
export interface RepairProposal {
  apiId: string;
  fromRevision: number;
  /** The repaired config, its revision one above the reviewed file's. */
  config: ApiConfig;
  repaired: string[];
  unrepaired: string[];
  /** Repairs refused because their values are not the field's, each with why. */
  refused: string[];
  recovery: { found: number; total: number };
  /** Who proposed the selectors: `heuristic`, or the model's name (with the heuristic filling in). */
  by: string;
  changes: ConfigChange[];
  /** What the repaired config extracts from the page, and what the config as it is extracts (health is judged on both). */
  data: Record<string, unknown>;
  before: Record<string, unknown>;
  /** The model's tokens the repair spent (none with the heuristic): they go into the endpoint's usage. */
  usage?: TokenUsage;
  /** Fields the model fills when served (model-fields.ts): not the repair's, not counted in its recovery. */
  modelFields: string[];
}

export interface RepairInput {
  config: ApiConfig;
  html: string;
  pageUrl: string;
  expected: Record<string, unknown>;
  /** The config's model, when it is not `heuristic`. */
  model?: Model;
  signal?: AbortSignal;
}

/**
 * The rule a model gets for a repair: the fields to keep and the values they held before the redesign. The
 * fields the model fills when served have no selector to repair: they are not asked for.
 */
export function repairRule(structure: Field[], expected: Record<string, unknown>): string {
  const shape = JSON.stringify(
    withoutModelFields(structure).map(({ name, type, fields, items, attribute }) => ({
      name,
      type,
      ...(attribute ? { attribute } : {}),
      ...(fields
        ? { fields: fields.map((f) => ({ name: f.name, type: f.type, ...(f.attribute ? { attribute: f.attribute } : {}) })) }
        : {}),
      ...(items ? { items } : {}),
    })),
  );
  const values = JSON.stringify(expected).slice(0, 4_000);
  return `The page was redesigned and these selectors stopped working. Propose new CSS selectors for exactly these fields, same names and types: ${shape}. Before the redesign they extracted: ${values}`;
}

/**
 * The model's selectors, placed on the old fields by name (names, types and transforms stay the config's). A
 * field without a selector stays so: a model field is not turned into a selector field by a repair.
 */
function mergeModelSelectors(old: Field[], proposed: Field[]): Field[] {
  return old.map((field) => {
    const match = proposed.find((candidate) => candidate.name === field.name);
    if (!match || match.selector === undefined) return field;
    if (field.selector === undefined && !field.fields?.length) return field;
    const fields = field.fields && match.fields ? mergeModelSelectors(field.fields, match.fields) : field.fields;
    return { ...field, selector: match.selector, ...(fields ? { fields } : {}) };
  });
}

export async function proposeRepair(request: RepairInput): Promise<RepairProposal> {
  // A paginated endpoint's last good list spans its pages; the repair sees the first (paged-expectation.ts).
  // Snapshots and samples keep the names they were taken under: a renamed field keeps its history (renamed-data.ts).
  // The model fields' values are the model's when served, never the repair's extraction's (model-fields.ts).
  const current = withoutModelValues(request.config.structure, underCurrentNames(request.config.structure, request.expected));
  // A section selector that finds nothing any more is repaired first: the fields are read inside it (reach-repair.ts).
  const section = repairedSection(request.config, request.html, request.pageUrl, current);
  const start = section ? { ...request.config, selector: section } : request.config;
  const input = { ...request, config: start, expected: pageExpectation(start, current, request.html, request.pageUrl) };
  const { config } = input;
  const heuristic: HealResult = healStructure({ config, html: input.html, pageUrl: input.pageUrl, expected: input.expected });
  let structure = heuristic.structure;
  let result = heuristic;
  let by = HEURISTIC_MODEL;
  let usage: TokenUsage | undefined;
  if (input.model && config.model !== HEURISTIC_MODEL) {
    input.signal?.throwIfAborted();
    const { sectionHtml } = selectSection(input.html, config.selector);
    const output = await input.model.generate({
      sectionHtml,
      pageHtml: input.html,
      pageUrl: input.pageUrl,
      selector: config.selector,
      rule: repairRule(config.structure, input.expected),
    });
    usage = output.usage;
    // Field by field: the model's selector where it brings that field's values back, the heuristic's elsewhere.
    const modelStructure = mergeModelSelectors(config.structure, output.structure);
    const pick = modelStructure.map((field, index) => {
      const expected = { [field.name]: input.expected[field.name] };
      const tryField = (candidate: Field) => {
        try {
          return recoveryOf(
            expected,
            compileStructure({ selector: config.selector, structure: [candidate] }).extract(input.html, input.pageUrl).data,
          ).found;
        } catch {
          return -1;
        }
      };
      return tryField(field) >= tryField(heuristic.structure[index]!) ? field : heuristic.structure[index]!;
    });
    // The model's selectors are checked as the heuristic's are: the values they read must be the field's.
    const extract = (candidate: Field[]) => extractedBy({ selector: config.selector, structure: candidate }, input.html, input.pageUrl);
    const checked = checkRepair(config.structure, pick, changedPaths(config.structure, pick), new Set(), input.expected, extract);
    structure = checked.structure;
    const data = extract(structure);
    const stillMissing = heuristic.unrepaired.filter(
      (path) => recoveryOf(pathValue(input.expected, path), pathValue(data, path)).found === 0,
    );
    const refused = [...heuristic.refused, ...checked.refused];
    result = { ...heuristic, structure, data, recovery: recoveryOf(input.expected, data), unrepaired: stillMissing, refused };
    by = `${config.model} (verified; heuristic where it did better)`;
  }
  const { pagination, reached } = reachRepairs(request.config, input.html, input.pageUrl, section);
  const repaired: ApiConfig = { ...config, structure, ...(pagination ? { pagination } : {}), revision: config.revision + 1 };
  const repairedPaths = [...result.repaired, ...reached];
  return {
    apiId: config.apiId,
    fromRevision: config.revision,
    config: repaired,
    repaired: repairedPaths,
    unrepaired: result.unrepaired,
    refused: result.refused,
    recovery: result.recovery,
    by,
    changes: describeChanges(request.config, repaired),
    data: result.data,
    before: extractedBy(request.config, input.html, input.pageUrl),
    ...(usage ? { usage } : {}),
    modelFields: modelFieldPaths(config.structure),
  };
}

/** What the config uses to reach its data, repaired: the pager's next link, a "Load more" button; and which were. */
function reachRepairs(
  config: ApiConfig,
  html: string,
  pageUrl: string,
  section: string | undefined,
): { pagination: ApiConfig['pagination']; reached: string[] } {
  const pagination = repairedLoadMore({ pagination: repairedPagination(config, html, pageUrl) }, html);
  const reached = [
    ...(section !== undefined ? ['selector'] : []),
    ...(pagination?.next !== config.pagination?.next ? ['pagination.next'] : []),
    ...(pagination?.loadMore !== config.pagination?.loadMore ? ['pagination.loadMore'] : []),
  ];
  return { pagination, reached };
}

/** What a config extracts from a page (nothing when its selectors do not compile). */
export function extractedBy(config: Pick<ApiConfig, 'selector' | 'structure'>, html: string, pageUrl: string): Record<string, unknown> {
  try {
    return compileStructure({ selector: config.selector, structure: config.structure }).extract(html, pageUrl).data;
  } catch {
    return {};
  }
}

function pathValue(value: unknown, path: string): unknown {
  let current = value;
  for (const key of path.split('.')) {
    if (Array.isArray(current))
      current = current.map((item) => (item && typeof item === 'object' ? (item as Record<string, unknown>)[key] : undefined));
    else current = current && typeof current === 'object' ? (current as Record<string, unknown>)[key] : undefined;
  }
  return current;
}

/** Dotted paths of the leaf fields whose selector differs between two structures of the same fields. */
function changedPaths(old: Field[], now: Field[], prefix = ''): string[] {
  return now.flatMap((field, index) => {
    const before = old[index];
    const path = prefix ? `${prefix}.${field.name}` : field.name;
    if (!before) return [];
    if (field.fields && before.fields) return changedPaths(before.fields, field.fields, path);
    return field.selector !== before.selector ? [path] : [];
  });
}
