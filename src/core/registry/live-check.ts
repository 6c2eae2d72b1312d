import { jsonPath, type ApiConfig, type ConfigProblem, type Field } from '../config/index.js';
import { candidateSections, fieldContexts, fieldMatches, parseHtml, sectionRoots, type DocumentLimits } from '../extract/index.js';
import { livePaginationProblems } from './pagination-live.js';

/**
 * `validate --live`: a config checked against its page as fetched now. A section selector that matches
 * nothing is an error (the endpoint would return nothing); a field selector that matches nothing, or an
 * attribute none of the matched elements has, is a warning (an optional field may be absent on this page).
 * The CLI runs it in a thread with the extraction budget (src/cli/isolated.ts); `limits` are the project's.
 */
export function liveProblems(config: ApiConfig, html: string, pageUrl: string, file: string, limits?: DocumentLimits): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const doc = parseHtml(html, limits);
  if (sectionRoots(doc, config.selector).length === 0) {
    const offered = candidateSections(doc.children).map((candidate) => `"${candidate.selector}" (${candidate.items} × ${candidate.item})`);
    problems.push({
      file,
      path: '$.selector',
      message: `the section selector "${config.selector}" matches nothing on ${pageUrl}`,
      hint: offered.length > 0 ? `sections this page has: ${offered.join(', ')}` : 'check the selector against the page source',
      severity: 'error',
    });
    return problems;
  }
  const walk = (fields: Field[], parent: string[], at: Array<string | number>) => {
    const contexts = fieldContexts(config, doc, parent);
    fields.forEach((field, index) => {
      const here = [...at, index];
      if (field.selector !== undefined && contexts.length > 0) {
        const isList = field.type === 'array';
        const attribute = isList ? field.items?.attribute : field.attribute;
        const matches = fieldMatches(contexts, field.selector, { all: isList, ...(attribute ? { attribute } : {}) });
        const where =
          parent.length === 0
            ? 'in the section'
            : `in any of the ${contexts.length} ${parent.join('.')} element${contexts.length === 1 ? '' : 's'}`;
        if (matches.elements.length === 0) {
          problems.push({
            file,
            path: jsonPath([...here, 'selector']),
            message: `"${field.selector}" matches nothing ${where} on ${pageUrl}`,
            hint: 'fix the selector (`pagejson edit` shows live matches), or remove the field',
            severity: 'warning',
          });
        } else if (attribute && !matches.attributes.some((entry) => entry.name === attribute.toLowerCase())) {
          const has = matches.attributes.slice(0, 6).map((entry) => entry.name);
          problems.push({
            file,
            path: jsonPath(isList ? [...here, 'items', 'attribute'] : [...here, 'attribute']),
            message: `attribute "${attribute}" is on none of the ${matches.elements.length} element${matches.elements.length === 1 ? '' : 's'} "${field.selector}" matches`,
            hint:
              has.length > 0
                ? `they have: ${has.join(', ')}; or leave attribute out to read their text`
                : 'they have no attributes: leave attribute out to read their text',
            severity: 'warning',
          });
        }
      }
      if (field.fields) walk(field.fields, [...parent, field.name], [...here, 'fields']);
    });
  };
  walk(config.structure, [], ['structure']);
  problems.push(...livePaginationProblems(config, doc, pageUrl, file));
  return problems;
}
