import { callerVariableNames, checkVariableValues, PLACEHOLDER_PATTERN, type ApiConfig } from '../config/index.js';

/**
 * A full URL read against an endpoint's URL template (docs/jobs.md, "urls"): the variables that make the
 * template give this URL, or why it does not fit. Placeholders sit only in path segments and query values
 * (config/url-template.ts), so the path is matched segment by segment and the query parameter by parameter.
 */
export type UrlMatch = { ok: true; values: Record<string, string> } | { ok: false; reason: string };

const TEMPLATE_SHAPE = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*)([^?#]*)(?:\?([^#]*))?/;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function decode(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/** One path segment of the template as a pattern, and the names of its placeholders in order. */
function segmentPattern(segment: string): { pattern: RegExp; names: string[] } {
  const names: string[] = [];
  let source = '';
  let last = 0;
  for (const match of segment.matchAll(PLACEHOLDER_PATTERN)) {
    source += escapeRegExp(segment.slice(last, match.index)) + '([^/]*?)';
    names.push(match[1]!);
    last = match.index + match[0].length;
  }
  source += escapeRegExp(segment.slice(last));
  return { pattern: new RegExp(`^${source}$`), names };
}

function matchPath(templatePath: string, path: string, values: Record<string, string>): string | undefined {
  const wanted = templatePath.split('/');
  const given = path.split('/');
  if (wanted.length !== given.length) return `its path has ${given.length - 1} segments, the endpoint's ${wanted.length - 1}`;
  for (let index = 0; index < wanted.length; index += 1) {
    const { pattern, names } = segmentPattern(wanted[index]!);
    const found = pattern.exec(given[index]!);
    if (!found) return `path segment ${index} is "${given[index]}", the endpoint's is "${wanted[index]}"`;
    for (let n = 0; n < names.length; n += 1) {
      const value = decode(found[n + 1]!);
      if (value === undefined) return `path segment ${index} is not valid percent-encoding`;
      values[names[n]!] = value;
    }
  }
  return undefined;
}

function matchQuery(templateQuery: string, query: URLSearchParams, values: Record<string, string>): string | undefined {
  for (const pair of templateQuery.split('&')) {
    if (pair === '') continue;
    const [rawKey = '', ...rest] = pair.split('=');
    const key = decode(rawKey.replace(/\+/g, ' ')) ?? rawKey;
    const raw = rest.join('=');
    const given = query.get(key);
    const single = /^\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$/.exec(raw);
    if (single) {
      if (given !== null) values[single[1]!] = given;
      continue;
    }
    if (given !== (decode(raw.replace(/\+/g, ' ')) ?? raw)) return `its query parameter ${key} is not "${raw}"`;
  }
  return undefined;
}

/** The variables that make `config`'s template give `url`, checked as a request's would be. */
export function matchUrl(config: Pick<ApiConfig, 'url' | 'variables' | 'pagination' | 'actions'>, url: string): UrlMatch {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: 'not a URL' };
  }
  const template = TEMPLATE_SHAPE.exec(config.url);
  if (!template) return { ok: false, reason: "the endpoint's URL template cannot be read" };
  let origin: string;
  try {
    origin = new URL(template[1]!).origin;
  } catch {
    return { ok: false, reason: "the endpoint's URL template cannot be read" };
  }
  if (parsed.origin !== origin) return { ok: false, reason: `not on ${origin}` };
  const values: Record<string, string> = {};
  const problem = matchPath(template[2] || '/', parsed.pathname, values) ?? matchQuery(template[3] ?? '', parsed.searchParams, values);
  if (problem) return { ok: false, reason: `does not fit the endpoint's URL template: ${problem}` };
  // The page variable is pagination's, never the caller's (docs/pagination.md).
  const callers = new Set(callerVariableNames(config));
  for (const name of Object.keys(values)) if (!callers.has(name)) delete values[name];
  const problems = checkVariableValues(config, values);
  if (problems.length > 0) return { ok: false, reason: problems[0]!.message };
  return { ok: true, values };
}
