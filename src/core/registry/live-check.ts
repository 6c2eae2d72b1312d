import type { AnyNode } from 'domhandler';
import { jsonPath, type ApiConfig, type ConfigProblem, type Field } from '../config/index.js';
import {
  candidateSections,
  compileStructure,
  fieldMatches,
  parseHtml,
  sectionRoots,
  type Document,
  type DocumentLimits,
  type Element,
} from '../extract/index.js';
import { livePaginationProblems } from './pagination-live.js';

/**
 * `validate --live`: a config checked against its page as fetched now. A section selector that matches
 * nothing is an error (the endpoint would return nothing); a field selector that matches nothing where
 * retrieval looks, an attribute none of the matched elements has, or a `json:` path that finds nothing in the
 * JSON the field reads, is a warning (an optional field may be absent on this page). Fields are checked where
 * retrieval reads them: a top-level field in the section and then in the whole page (the page's head: its
 * title, meta tags and JSON-LD), a field of an array in its items. The CLI runs it in a thread with the
 * extraction budget (src/cli/isolated.ts); `limits` are the project's.
 */
export function liveProblems(config: ApiConfig, html: string, pageUrl: string, file: string, limits?: DocumentLimits): ConfigProblem[] {
  const doc = parseHtml(html, limits);
  if (sectionRoots(doc, config.selector).length === 0) {
    const offered = candidateSections(doc.children).map((candidate) => `"${candidate.selector}" (${candidate.items} × ${candidate.item})`);
    return [
      {
        file,
        path: '$.selector',
        message: `the section selector "${config.selector}" matches nothing on ${pageUrl}`,
        hint: offered.length > 0 ? `sections this page has: ${offered.join(', ')}` : 'check the selector against the page source',
        severity: 'error',
      },
    ];
  }
  const check: LiveCheck = { config, doc, pageUrl, file, data: extractedData(config, doc, pageUrl), problems: [] };
  checkFields(check, config.structure, [sectionRoots(doc, config.selector), [doc]], [], ['structure']);
  return [...check.problems, ...livePaginationProblems(config, doc, pageUrl, file)];
}

interface LiveCheck {
  config: ApiConfig;
  doc: Document;
  pageUrl: string;
  file: string;
  /** What retrieval extracts from the page, to tell a `json:` path that finds nothing. */
  data: Record<string, unknown> | undefined;
  problems: ConfigProblem[];
}

function extractedData(config: ApiConfig, doc: Document, pageUrl: string): Record<string, unknown> | undefined {
  try {
    return compileStructure(config).extractFromDocument(doc, pageUrl).data;
  } catch {
    // A config the static checks passed compiles; should one not, the selector checks below still say what they can.
    return undefined;
  }
}

/**
 * The fields where retrieval reads them (extract/engine/compile.ts): `scopes` are tried in order, the first in
 * which a selector matches is used; the top level's are the section, then the whole page.
 */
function checkFields(check: LiveCheck, fields: Field[], scopes: AnyNode[][], parent: string[], at: Array<string | number>): void {
  fields.forEach((field, index) => {
    const here = [...at, index];
    let inner = scopes;
    if (field.selector !== undefined) {
      const found = scopes.some((scope) => scope.length > 0) ? checkField(check, field, scopes, parent, here) : [];
      // An array's fields are read in each of its items, an object's in its element.
      inner = [field.type === 'array' ? found : found.slice(0, 1)];
    }
    if (field.fields) checkFields(check, field.fields, inner, [...parent, field.name], [...here, 'fields']);
  });
}

/** One field's selector (and attribute, and JSON path) on the page; the elements it matched. */
function checkField(check: LiveCheck, field: Field, scopes: AnyNode[][], parent: string[], here: Array<string | number>): Element[] {
  const { file, pageUrl } = check;
  const isList = field.type === 'array';
  const attribute = isList ? field.items?.attribute : field.attribute;
  const options = { all: isList, ...(attribute ? { attribute } : {}) };
  let matches = fieldMatches(scopes[0] ?? [], field.selector!, options);
  for (const scope of scopes.slice(1)) if (matches.elements.length === 0) matches = fieldMatches(scope, field.selector!, options);
  if (matches.elements.length === 0) {
    const contexts = scopes[0]?.length ?? 0;
    const where =
      scopes.length > 1
        ? `on ${pageUrl} (in the section or the whole page)`
        : `in any of the ${contexts} ${parent.join('.')} element${contexts === 1 ? '' : 's'} on ${pageUrl}`;
    check.problems.push({
      file,
      path: jsonPath([...here, 'selector']),
      message: `"${field.selector}" matches nothing ${where}`,
      hint: 'fix the selector (`pagejson edit` shows live matches), or remove the field',
      severity: 'warning',
    });
    return [];
  }
  if (attribute && !matches.attributes.some((entry) => entry.name === attribute.toLowerCase())) {
    const has = matches.attributes.slice(0, 6).map((entry) => entry.name);
    const count = matches.elements.length;
    check.problems.push({
      file,
      path: jsonPath(isList ? [...here, 'items', 'attribute'] : [...here, 'attribute']),
      message: `attribute "${attribute}" is on none of the ${count} element${count === 1 ? '' : 's'} "${field.selector}" matches`,
      hint:
        has.length > 0
          ? `they have: ${has.join(', ')}; or leave attribute out to read their text`
          : 'they have no attributes: leave attribute out to read their text',
      severity: 'warning',
    });
    return matches.elements;
  }
  checkJsonPath(check, field, [...parent, field.name], here);
  return matches.elements;
}

/** A field reading JSON (`json:<path>`) whose selector found the JSON but whose path finds nothing in it. */
function checkJsonPath(check: LiveCheck, field: Field, names: string[], here: Array<string | number>): void {
  const transforms = [...(field.transform ?? []), ...(field.type === 'array' ? (field.items?.transform ?? []) : [])];
  const index = transforms.findIndex((transform) => transform.startsWith('json:'));
  if (index < 0 || check.data === undefined || field.fields) return;
  const values = valuesAt(check.data, names);
  if (values.length === 0 || values.some((value) => value !== null && !(Array.isArray(value) && value.length === 0))) return;
  const inItems = field.type === 'array' && field.items?.transform?.includes(transforms[index]!) === true;
  const path = inItems ? [...here, 'items', 'transform'] : [...here, 'transform'];
  check.problems.push({
    file: check.file,
    path: jsonPath([...path, inItems ? field.items!.transform!.indexOf(transforms[index]!) : index]),
    message: `"${transforms[index]}" finds nothing in the JSON "${field.selector}" holds on ${check.pageUrl}`,
    hint: 'check the path against the page source (keys are case-sensitive; a schema.org type may lead it: Product.offers.price)',
    severity: 'warning',
  });
}

/** The values at a field's path in the extracted data, through the arrays on the way (one per item). */
function valuesAt(data: unknown, names: readonly string[]): unknown[] {
  let current: unknown[] = [data];
  for (const name of names) {
    const next: unknown[] = [];
    for (const value of current) {
      const items = Array.isArray(value) ? value : [value];
      for (const item of items)
        if (item !== null && typeof item === 'object' && Object.hasOwn(item, name)) next.push((item as Record<string, unknown>)[name]);
    }
    current = next;
  }
  return current;
}
