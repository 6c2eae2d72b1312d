import { compileSafePattern, PagejsonError, PatternProblem } from '../shared/index.js';
import { actionVariableNames, type Action } from './action-text.js';
import { VARIABLE_NAME_PATTERN } from './constants.js';
import type { Variable } from './schema.js';

/**
 * Dynamic URL templates (docs/wire.md, variables): `{{ name }}` (spaces optional) inside a path segment or a query
 * parameter value, never in scheme, host, port, user info, parameter names or fragment. Values are
 * percent-encoded into their place, so a caller can never change where a request goes: only the text of the
 * segment or value that holds the placeholder.
 */
export const PLACEHOLDER_PATTERN = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;
export const MAX_VARIABLE_LENGTH = 1024;

export type VariableProblemCode =
  'VARIABLE_MISSING' | 'VARIABLE_UNKNOWN' | 'VARIABLE_NOT_STRING' | 'VARIABLE_PATTERN' | 'VARIABLE_TOO_LONG';

export interface VariableProblem {
  code: VariableProblemCode;
  name: string;
  /** Exact wire message of docs/wire.md. */
  message: string;
}

export interface TemplateSource {
  url: string;
  variables: Record<string, Variable>;
  /** `pagination.variable` names a placeholder that pagination fills, not the caller (docs/pagination.md). */
  pagination?: { variable?: string | undefined; start?: number | undefined } | undefined;
  /** Browser steps whose text may hold request variables (`"text": "{{ q }}"`, docs/actions.md). */
  actions?: readonly Action[] | undefined;
}

interface UrlParts {
  origin: string; // scheme://authority
  path: string;
  query: string; // without '?', may be ''
  hasQuery: boolean;
  fragment: string; // with '#', may be ''
}

const URL_SHAPE = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*)([^?#]*)(\?[^#]*)?(#.*)?$/;

function splitUrl(url: string): UrlParts | undefined {
  const match = URL_SHAPE.exec(url);
  if (!match) return undefined;
  return {
    origin: match[1]!,
    path: match[2] ?? '',
    query: (match[3] ?? '').slice(1),
    hasQuery: match[3] !== undefined,
    fragment: match[4] ?? '',
  };
}

function joinUrl(parts: UrlParts): string {
  return `${parts.origin}${parts.path}${parts.hasQuery ? `?${parts.query}` : ''}${parts.fragment}`;
}

/** Names of the placeholders in order of first appearance. */
export function placeholderNames(url: string): string[] {
  const names: string[] = [];
  for (const match of url.matchAll(PLACEHOLDER_PATTERN)) if (!names.includes(match[1]!)) names.push(match[1]!);
  return names;
}

export function isDynamic(url: string): boolean {
  return placeholderNames(url).length > 0;
}

/** The placeholders a caller fills: all but the page variable, which pagination counts (docs/pagination.md). */
export function callerVariableNames(source: TemplateSource): string[] {
  const names = [...new Set([...placeholderNames(source.url), ...actionVariableNames(source.actions)])];
  const page = source.pagination?.variable;
  return page === undefined ? names : names.filter((name) => name !== page);
}

/** Whether callers send variables: an endpoint whose only variable is the page one is static (GET). */
export function hasCallerVariables(source: TemplateSource): boolean {
  return callerVariableNames(source).length > 0;
}

/** The page variable's value for the first page, when pagination fills one. */
function firstPageValues(source: TemplateSource): Record<string, string> {
  const page = source.pagination?.variable;
  return page === undefined ? {} : { [page]: String(source.pagination?.start ?? 1) };
}

/** Problems with the template itself (for validation); empty when it is well-formed. */
export function templateProblems(url: string): string[] {
  const problems: string[] = [];
  const parts = splitUrl(url);
  if (!parts) return ['the url must be an absolute http(s) URL such as https://shop.example/catalogue/'];
  if (!/^https?:\/\//i.test(parts.origin)) problems.push('the url scheme must be http or https');
  const stray = url.replace(PLACEHOLDER_PATTERN, '').match(/\{\{|\}\}/);
  if (stray) problems.push('the url holds a malformed placeholder: write {{ name }} with a name of letters, digits and _');
  if (parts.origin.includes('{{')) problems.push('placeholders may not stand in the scheme, host, port or user info');
  if (parts.fragment.includes('{{')) problems.push('placeholders may not stand in the fragment');
  for (const pair of parts.query.split('&')) {
    const key = pair.split('=')[0] ?? '';
    if (key.includes('{{')) problems.push(`placeholders may not stand in a query parameter name ("${key}")`);
  }
  // The template with example-like values must be a valid URL.
  try {
    const probe = new URL(url.replace(PLACEHOLDER_PATTERN, 'x'));
    if (!probe.hostname) problems.push('the url has no host');
  } catch {
    problems.push('the url is not a valid URL');
  }
  return problems;
}

/**
 * The value matches the whole pattern (users write `[0-9]+` and mean all of it), on the linear-time engine:
 * this runs on the daemon's main thread for every request (safe-pattern.ts). A pattern that is refused (a
 * config that was never validated) matches nothing.
 */
function matchesPattern(pattern: string, value: string): boolean {
  try {
    return compileSafePattern(pattern, 'variable').matchesWhole(value);
  } catch (error) {
    if (error instanceof PatternProblem) return false;
    throw error;
  }
}

/** A variable entry of the config, own properties only (`constructor` must not find Object.prototype's). */
export function ownVariable(config: TemplateSource, name: string): Variable | undefined {
  return Object.hasOwn(config.variables, name) ? config.variables[name] : undefined;
}

// A lone UTF-16 surrogate cannot be percent-encoded (encodeURIComponent throws): it is a bad value, not a 500.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// Separators inside a path segment would be sent encoded (%2F, %5C), and some servers decode them again.
const PATH_SEPARATOR = /[/\\]/;

/**
 * The path segments of the template that hold placeholders, with the names in each. Checked after
 * substitution as a whole: two variables in one segment (`{{ name }}.{{ ext }}`) can make `..` together.
 */
function dynamicSegments(url: string): Array<{ segment: string; names: string[] }> {
  const parts = splitUrl(url);
  if (!parts) return [];
  return parts.path
    .split('/')
    .filter((segment) => segment.includes('{{'))
    .map((segment) => ({ segment, names: [...segment.matchAll(PLACEHOLDER_PATTERN)].map((match) => match[1]!) }));
}

/** A rendered segment that a URL parser treats as a dot segment (`.`, `..`, `%2e`, `.%2E`, …) or that is empty. */
function isDotOrEmptySegment(rendered: string): boolean {
  const decoded = rendered.replace(/%2e/gi, '.');
  return decoded === '' || decoded === '.' || decoded === '..';
}

/** One caller variable's usable value, or its first problem (missing, not a string, too long, not matching). */
function checkOneValue(config: TemplateSource, name: string, values: Record<string, unknown>, inPath: boolean): VariableProblem | string {
  if (!Object.hasOwn(values, name)) {
    return { code: 'VARIABLE_MISSING', name, message: `missing variable: ${name}` };
  }
  const value = values[name];
  if (typeof value !== 'string') {
    return { code: 'VARIABLE_NOT_STRING', name, message: `variable ${name} must be a string` };
  }
  if (value.length > MAX_VARIABLE_LENGTH) {
    return { code: 'VARIABLE_TOO_LONG', name, message: `variable ${name} is too long` };
  }
  const pattern = ownVariable(config, name)?.pattern;
  if (LONE_SURROGATE.test(value)) {
    return {
      code: 'VARIABLE_PATTERN',
      name,
      message: `variable ${name} does not match ${pattern ?? 'well-formed Unicode text'}`,
    };
  }
  if (pattern !== undefined && !matchesPattern(pattern, value)) {
    return { code: 'VARIABLE_PATTERN', name, message: `variable ${name} does not match ${pattern}` };
  }
  if (inPath && PATH_SEPARATOR.test(value)) {
    return {
      code: 'VARIABLE_PATTERN',
      name,
      message: `variable ${name} does not match ${pattern ?? 'a path segment without "/" or "\\"'}`,
    };
  }
  return value;
}

/** Every problem with the values a caller supplied, one per problem, in placeholder order then unknown keys. */
export function checkVariableValues(config: TemplateSource, values: Record<string, unknown>): VariableProblem[] {
  const problems: VariableProblem[] = [];
  const names = callerVariableNames(config);
  const segments = dynamicSegments(config.url);
  const inPath = new Set(segments.flatMap((entry) => entry.names));
  const good = new Map<string, string>();
  for (const name of names) {
    const checked = checkOneValue(config, name, values, inPath.has(name));
    if (typeof checked === 'string') good.set(name, checked);
    else problems.push(checked);
  }
  // Each dynamic segment, once every variable in it has a usable value, must not become a dot segment.
  for (const { segment, names: inSegment } of segments) {
    if (!inSegment.every((name) => good.has(name))) continue;
    const rendered = segment.replace(PLACEHOLDER_PATTERN, (_whole, name: string) => encodeURIComponent(good.get(name)!));
    if (!isDotOrEmptySegment(rendered)) continue;
    const name = inSegment[0]!;
    if (problems.some((problem) => problem.name === name)) continue;
    const pattern = ownVariable(config, name)?.pattern;
    problems.push({
      code: 'VARIABLE_PATTERN',
      name,
      message: `variable ${name} does not match ${pattern ?? 'a path segment other than "", "." or ".."'}`,
    });
  }
  for (const name of Object.keys(values)) {
    if (!names.includes(name)) problems.push({ code: 'VARIABLE_UNKNOWN', name, message: `unknown variable: ${name}` });
  }
  return problems;
}

/** Substitute percent-encoded values. Callers check values first (checkVariableValues); this trusts them. */
export function renderTemplate(url: string, values: Record<string, string>): string {
  return url.replace(PLACEHOLDER_PATTERN, (_whole, name: string) => encodeURIComponent(values[name] ?? ''));
}

/** The concrete source URL for a request, or a PagejsonError carrying every variable problem. */
export function resolveSourceUrl(config: TemplateSource, values: Record<string, unknown>): string {
  const problems = checkVariableValues(config, values);
  if (problems.length > 0) {
    const first = problems[0]!;
    throw new PagejsonError(first.code, first.message, {
      context: { problems },
      hint: 'send every variable of the endpoint as a string in the JSON body (see `pagejson show <apiId>`)',
    });
  }
  return renderTemplate(config.url, { ...firstPageValues(config), ...(values as Record<string, string>) });
}

/** The example values of every variable: what generate, run and test use. */
export function exampleValues(config: TemplateSource): Record<string, string> {
  const values: Record<string, string> = {};
  for (const name of callerVariableNames(config)) values[name] = ownVariable(config, name)?.example ?? '';
  return values;
}

export type VariableSpec = { kind: 'path'; index: number } | { kind: 'query'; param: string };

/** Parse `path:N` (1-based) or `query:PARAM`. */
export function parseVariableSpec(spec: string): VariableSpec {
  const path = /^path:([1-9][0-9]*)$/.exec(spec);
  if (path) return { kind: 'path', index: Number(path[1]) };
  const query = /^query:(.+)$/.exec(spec);
  if (query) return { kind: 'query', param: query[1]! };
  throw new PagejsonError('USAGE', `cannot read variable place "${spec}"`, {
    hint: 'write path:N (the N-th path segment, from 1) or query:PARAM',
  });
}

function templateError(message: string, hint: string): PagejsonError {
  return new PagejsonError('TEMPLATE_INVALID', message, { hint });
}

/** Make a path segment or query value dynamic, keeping its current value as the variable's example. */
export function markVariable(config: TemplateSource, spec: string | VariableSpec, name: string): Pick<TemplateSource, 'url' | 'variables'> {
  const place = typeof spec === 'string' ? parseVariableSpec(spec) : spec;
  if (!VARIABLE_NAME_PATTERN.test(name))
    throw templateError(`"${name}" is not a valid variable name`, 'use letters, digits and _, starting with a letter or _');
  if (placeholderNames(config.url).includes(name) || ownVariable(config, name))
    throw templateError(`variable "${name}" already exists`, 'choose another name, or --unvar it first');
  const parts = splitUrl(config.url);
  if (!parts) throw templateError(`cannot read the url "${config.url}"`, 'fix the url first');
  const placeholder = `{{ ${name} }}`;
  let example: string;
  if (place.kind === 'path') {
    const segments = parts.path.split('/');
    // segments[0] is the empty string before the leading slash.
    const segment = segments[place.index];
    if (segment === undefined || (segment === '' && place.index === segments.length - 1)) {
      throw templateError(
        `the url has no path segment ${place.index}`,
        `the path "${parts.path}" has ${segments.filter(Boolean).length} segment(s)`,
      );
    }
    if (segment.includes('{{')) throw templateError(`path segment ${place.index} is already dynamic`, 'use --unvar to make it fixed first');
    example = safeDecode(segment);
    segments[place.index] = placeholder;
    parts.path = segments.join('/');
  } else {
    const pairs = parts.hasQuery ? parts.query.split('&') : [];
    const at = pairs.findIndex((pair) => safeDecode(pair.split('=')[0] ?? '') === place.param);
    if (at < 0) throw templateError(`the url has no query parameter "${place.param}"`, 'add it to the url first, e.g. ?page=1');
    const [key, ...rest] = pairs[at]!.split('=');
    const value = rest.join('=');
    if (value.includes('{{'))
      throw templateError(`query parameter "${place.param}" is already dynamic`, 'use --unvar to make it fixed first');
    example = safeDecode(value.replace(/\+/g, ' '));
    pairs[at] = `${key}=${placeholder}`;
    parts.query = pairs.join('&');
  }
  return { url: joinUrl(parts), variables: { ...config.variables, [name]: { example } } };
}

/** Turn a variable back into a fixed value: its example, encoded into its place. */
export function unmarkVariable(config: TemplateSource, name: string): Pick<TemplateSource, 'url' | 'variables'> {
  if (!placeholderNames(config.url).includes(name))
    throw templateError(`the url has no variable "${name}"`, `variables: ${placeholderNames(config.url).join(', ') || 'none'}`);
  const example = ownVariable(config, name)?.example ?? '';
  const url = config.url.replace(PLACEHOLDER_PATTERN, (whole, found: string) => (found === name ? encodeURIComponent(example) : whole));
  const variables = { ...config.variables };
  delete variables[name];
  return { url, variables };
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * The places of a URL that can be made dynamic, each with its spec (`path:N`, `query:PARAM`), its value (a
 * variable's example when dynamic) and its variable name when it is one: what the dashboard shows as a
 * toggle per path segment and query parameter (docs/wire.md, variables).
 */
export interface UrlPlace {
  spec: string;
  kind: 'path' | 'query';
  /** The path segment's 1-based position or the query parameter's name. */
  label: string;
  value: string;
  variable: string | null;
}

export function urlPlaces(config: TemplateSource): { origin: string; places: UrlPlace[] } | undefined {
  const parts = splitUrl(config.url);
  if (!parts) return undefined;
  const single = (text: string): string | null => {
    const match = /^\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$/.exec(text);
    return match ? match[1]! : null;
  };
  const valueOf = (raw: string, variable: string | null): string =>
    variable ? (ownVariable(config, variable)?.example ?? '') : safeDecode(raw);
  const places: UrlPlace[] = [];
  parts.path.split('/').forEach((segment, index, all) => {
    // segments[0] is the empty string before the leading slash; a trailing slash leaves an empty last one.
    if (index === 0 || (segment === '' && index === all.length - 1)) return;
    const variable = single(segment);
    places.push({ spec: `path:${index}`, kind: 'path', label: String(index), value: valueOf(segment, variable), variable });
  });
  if (parts.hasQuery && parts.query !== '') {
    for (const pair of parts.query.split('&')) {
      const [key = '', ...rest] = pair.split('=');
      const raw = rest.join('=');
      const param = safeDecode(key);
      const variable = single(raw);
      places.push({
        spec: `query:${param}`,
        kind: 'query',
        label: param,
        value: variable ? valueOf(raw, variable) : safeDecode(raw.replace(/\+/g, ' ')),
        variable,
      });
    }
  }
  return { origin: parts.origin, places };
}
