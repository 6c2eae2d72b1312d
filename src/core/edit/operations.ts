import { PagejsonError } from '../shared/index.js';
import { FIELD_TYPES, markVariable, SCALAR_TYPES, unmarkVariable, type ApiConfig, type Field, type FieldType } from '../config/index.js';
import { PAGINATION_SETTERS } from './pagination-edit.js';
import { setActions } from './actions-edit.js';
import { ACCESS_SETTERS, accessSetter } from './access-edit.js';
import { LOGIN_SETTERS, loginSetter } from './login-edit.js';
import { variableSetter } from './variables-edit.js';

/**
 * Edits of a config as pure functions: each takes a config and returns a new one (never mutating), so the
 * CLI flags, the interactive editor and tests share one implementation. Validation of the result is the
 * caller's (parse with ApiConfigSchema + checkConfigRules) so that several edits can pass through an
 * intermediate state, e.g. adding an object field and then its fields.
 */
export type EditOperation =
  | { kind: 'add'; path: string; type: FieldType; selector?: string; attribute?: string; transform?: string[] }
  | { kind: 'remove'; path: string }
  | { kind: 'rename'; path: string; name: string }
  | { kind: 'move'; path: string; position: number }
  | { kind: 'set'; key: string; value: string }
  | { kind: 'var'; spec: string; name: string }
  | { kind: 'unvar'; name: string }
  /** Move a field into an object field or an array-of-objects field (`into` = its path), as its last field. */
  | { kind: 'nest'; path: string; into: string };

function usage(message: string, hint: string): PagejsonError {
  return new PagejsonError('USAGE', message, { hint });
}

function editError(message: string, hint: string): PagejsonError {
  return new PagejsonError('CONFIG_INVALID', message, { hint });
}

/** `PATH:TYPE[=SELECTOR]`, e.g. `books.rating:number=.star-rating`. */
export function parseAddSpec(spec: string): EditOperation {
  const match = /^([^:=]+):([a-z]+)(?:=(.+))?$/.exec(spec);
  if (!match) throw usage(`cannot read --add "${spec}"`, 'write PATH:TYPE[=SELECTOR], e.g. --add books.rating:number=.star-rating');
  const type = match[2] as FieldType;
  if (!FIELD_TYPES.includes(type)) throw usage(`unknown field type "${match[2]}"`, `types: ${FIELD_TYPES.join(', ')}`);
  return { kind: 'add', path: match[1]!, type, ...(match[3] ? { selector: match[3] } : {}) };
}

/** `NAME=VALUE`-style flag values split at the first '='. */
export function splitAssignment(flag: string, text: string, example: string): [string, string] {
  const at = text.indexOf('=');
  if (at <= 0) throw usage(`cannot read ${flag} "${text}"`, `write ${example}`);
  return [text.slice(0, at), text.slice(at + 1)];
}

interface Located {
  siblings: Field[];
  index: number;
  field: Field;
}

/** Copy the structure and locate a field by dotted path in the copy (so callers can change it in place). */
function locate(structure: Field[], path: string): { structure: Field[]; found: Located } {
  const copy = structuredClone(structure);
  const names = path.split('.');
  let siblings = copy;
  for (let depth = 0; depth < names.length; depth += 1) {
    const index = siblings.findIndex((field) => field.name === names[depth]);
    if (index < 0) {
      const here = names.slice(0, depth).join('.') || 'the top level';
      throw editError(`no field "${names[depth]}" in ${here}`, `fields there: ${siblings.map((f) => f.name).join(', ') || 'none'}`);
    }
    const field = siblings[index]!;
    if (depth === names.length - 1) return { structure: copy, found: { siblings, index, field } };
    if (!field.fields)
      throw editError(
        `field "${names.slice(0, depth + 1).join('.')}" has no nested fields`,
        'only object fields and arrays of objects nest',
      );
    siblings = field.fields;
  }
  throw editError(`empty field path`, 'name a field, e.g. books.price');
}

function parentList(structure: Field[], path: string): { structure: Field[]; siblings: Field[]; name: string } {
  const names = path.split('.');
  const name = names.pop()!;
  if (names.length === 0) {
    const copy = structuredClone(structure);
    return { structure: copy, siblings: copy, name };
  }
  const { structure: copy, found } = locate(structure, names.join('.'));
  if (found.field.type !== 'object' && found.field.type !== 'array')
    throw editError(`field "${names.join('.')}" is a ${found.field.type}`, 'fields can be added only inside object and array fields');
  if (found.field.items) {
    // A plain list of strings (what `--add PATH:array=SEL` makes) becomes a list of objects by its first field;
    // one whose items read an attribute or transform would lose that silently, so it is said instead.
    const { type, ...itemSettings } = found.field.items;
    if (type !== 'string' || Object.keys(itemSettings).length > 0)
      throw editError(
        `"${names.join('.')}" is an array of ${type} values read with ${Object.keys(itemSettings).join(', ') || 'its type'}`,
        `to read objects instead, --remove ${names.join('.')} and --add ${names.join('.')}:array=SELECTOR again before its fields`,
      );
    delete found.field.items;
  }
  found.field.fields ??= [];
  return { structure: copy, siblings: found.field.fields, name };
}

const TOP_LEVEL_SETTERS: Record<string, (config: ApiConfig, value: string) => ApiConfig> = {
  url: (c, v) => ({ ...c, url: v }),
  scraper: (c, v) => ({ ...c, scraper: parseScraper(v) }),
  session: (c, v) => ({ ...c, session: parseBoolean('session', v) }),
  caching: (c, v) => ({ ...c, caching: parseBoolean('caching', v) }),
  status: (c, v) => {
    if (v !== 'active' && v !== 'inactive')
      throw usage(`status must be active or inactive, not "${v}"`, 'write --set status=active or --set status=inactive');
    return { ...c, status: v };
  },
  model: (c, v) => ({ ...c, model: v }),
  selector: (c, v) => ({ ...c, selector: v || 'body' }),
  rule: (c, v) => ({ ...c, rule: v === '' || v === 'null' ? null : v }),
  description: (c, v) => {
    const { description: _old, ...rest } = c;
    return v === '' || v === 'null' ? rest : { ...rest, description: v };
  },
  monitor: setMonitorEvery,
  'monitor.every': setMonitorEvery,
  'monitor.variables': setMonitorVariables,
  ...PAGINATION_SETTERS,
  actions: setActions,
  ...ACCESS_SETTERS,
  ...LOGIN_SETTERS,
};

/** `--set monitor.every=15m`, `--set monitor=off` (removes the schedule), `--set monitor.variables=[{…}]`. */
const isOff = (value: string): boolean => ['', 'null', 'off', 'none', 'false'].includes(value.trim().toLowerCase());

function withoutMonitor(config: ApiConfig): ApiConfig {
  const { monitor: _old, ...rest } = config;
  return rest;
}

function setMonitorEvery(config: ApiConfig, value: string): ApiConfig {
  if (isOff(value)) return withoutMonitor(config);
  return { ...config, monitor: { ...config.monitor, every: value.trim() } };
}

function setMonitorVariables(config: ApiConfig, value: string): ApiConfig {
  if (!config.monitor)
    throw usage('set a schedule before its variables', 'write --set monitor.every=15m first (in the same command is fine)');
  if (isOff(value)) {
    const { variables: _old, ...monitor } = config.monitor;
    return { ...config, monitor };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw usage(
      `monitor.variables must be JSON, got ${value.slice(0, 80)}`,
      'write --set \'monitor.variables=[{"city":"paris"},{"city":"lyon"}]\'',
    );
  }
  const sets = Array.isArray(parsed) ? parsed : [parsed];
  if (sets.some((set) => typeof set !== 'object' || set === null || Array.isArray(set)))
    throw usage('monitor.variables is a list of objects of variable values', 'write --set \'monitor.variables=[{"city":"paris"}]\'');
  return { ...config, monitor: { ...config.monitor, variables: sets as Array<Record<string, string>> } };
}

const FIELD_PROPERTIES = ['selector', 'attribute', 'type', 'transform', 'description', 'required'] as const;

function parseScraper(value: string): 1 | 2 | 3 {
  if (value === '1' || value === '2' || value === '3') return Number(value) as 1 | 2 | 3;
  throw usage(`scraper must be 1, 2 or 3, not "${value}"`, '1 = plain HTTP, 2 = Crawlee with browser fingerprints, 3 = headless Chromium');
}

function parseBoolean(key: string, value: string): boolean {
  if (['true', 'yes', 'on', '1'].includes(value)) return true;
  if (['false', 'no', 'off', '0'].includes(value)) return false;
  throw usage(`${key} must be true or false, not "${value}"`, `write --set ${key}=true or --set ${key}=false`);
}

function setFieldProperty(config: ApiConfig, path: string, property: (typeof FIELD_PROPERTIES)[number], value: string): ApiConfig {
  const { structure, found } = locate(config.structure, path);
  const field = found.field as Record<string, unknown>;
  // A list of scalars reads its attribute per item: `books.tags.attribute` means its items' attribute.
  if (property === 'attribute' && found.field.type === 'array' && !found.field.fields) {
    const items = { ...(found.field.items ?? { type: 'string' as const }) };
    if (value === '' || value === 'null') delete items.attribute;
    else items.attribute = value;
    field.items = items;
    delete field.attribute;
    return { ...config, structure };
  }
  if (value === '' || value === 'null') {
    if (property === 'type') throw usage('a field always has a type', `types: ${FIELD_TYPES.join(', ')}`);
    delete field[property];
  } else if (property === 'type') {
    if (!FIELD_TYPES.includes(value as FieldType)) throw usage(`unknown field type "${value}"`, `types: ${FIELD_TYPES.join(', ')}`);
    field.type = value;
    if (value === 'array' && !found.field.fields && !found.field.items) field.items = { type: 'string' };
    if ((SCALAR_TYPES as readonly string[]).includes(value)) delete field.items;
  } else if (property === 'transform') {
    field.transform = value
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
  } else if (property === 'required') {
    field.required = parseBoolean(`${path}.required`, value);
  } else {
    field[property] = value;
  }
  return { ...config, structure };
}

type OperationOf<Kind extends EditOperation['kind']> = Extract<EditOperation, { kind: Kind }>;

/** Add a new field at its path, refusing a name already used at that level. */
function addField(config: ApiConfig, operation: OperationOf<'add'>): ApiConfig {
  const { structure, siblings, name } = parentList(config.structure, operation.path);
  if (siblings.some((f) => f.name === name))
    throw editError(`a field "${operation.path}" already exists`, 'choose another name or --remove it first');
  const field: Field = { name, type: operation.type };
  if (operation.selector) field.selector = operation.selector;
  // A list of scalars reads its attribute per item (items.attribute); a field-level one would be ignored.
  if (operation.attribute && operation.type !== 'array') field.attribute = operation.attribute;
  if (operation.transform) field.transform = operation.transform;
  if (operation.type === 'array') field.items = { type: 'string', ...(operation.attribute ? { attribute: operation.attribute } : {}) };
  siblings.push(field);
  return { ...config, structure };
}

/** Move a field to a 1-based position within its level. */
function moveField(config: ApiConfig, operation: OperationOf<'move'>): ApiConfig {
  const { structure, found } = locate(config.structure, operation.path);
  if (!Number.isInteger(operation.position) || operation.position < 1 || operation.position > found.siblings.length) {
    throw usage(`position ${operation.position} is outside 1..${found.siblings.length}`, "positions count from 1 within the field's level");
  }
  found.siblings.splice(found.index, 1);
  found.siblings.splice(operation.position - 1, 0, found.field);
  return { ...config, structure };
}

/** Set a top-level, access or login key, or PATH.property of a field. */
function setKey(config: ApiConfig, operation: OperationOf<'set'>): ApiConfig {
  // The key comes from outside (a flag, the dashboard): only own entries, never `constructor` and the like.
  const topLevel = Object.hasOwn(TOP_LEVEL_SETTERS, operation.key) ? TOP_LEVEL_SETTERS[operation.key] : undefined;
  if (topLevel) return topLevel(config, operation.value);
  // `variables.NAME…` names a variable unless the structure has a field called `variables` (its PATH.property).
  const variable = config.structure.some((field) => field.name === 'variables') ? undefined : variableSetter(operation.key);
  const access = accessSetter(operation.key) ?? loginSetter(operation.key) ?? variable;
  if (access) return access(config, operation.value);
  const at = operation.key.lastIndexOf('.');
  const property = operation.key.slice(at + 1) as (typeof FIELD_PROPERTIES)[number];
  if (at > 0 && FIELD_PROPERTIES.includes(property)) return setFieldProperty(config, operation.key.slice(0, at), property, operation.value);
  throw usage(
    `cannot set "${operation.key}"`,
    `settable: ${Object.keys(TOP_LEVEL_SETTERS).join(', ')}, variables.NAME.example|pattern|description, or PATH.${FIELD_PROPERTIES.join('|')}`,
  );
}

export function applyEdit(config: ApiConfig, operation: EditOperation): ApiConfig {
  switch (operation.kind) {
    case 'add':
      return addField(config, operation);
    case 'remove': {
      const { structure, found } = locate(config.structure, operation.path);
      found.siblings.splice(found.index, 1);
      return { ...config, structure };
    }
    case 'rename': {
      const { structure, found } = locate(config.structure, operation.path);
      if (found.siblings.some((f) => f.name === operation.name))
        throw editError(`a field "${operation.name}" already exists at that level`, 'choose another name');
      found.field.name = operation.name;
      return { ...config, structure };
    }
    case 'move':
      return moveField(config, operation);
    case 'set':
      return setKey(config, operation);
    case 'var':
      return { ...config, ...markVariable(config, operation.spec, operation.name) };
    case 'unvar':
      return { ...config, ...unmarkVariable(config, operation.name) };
    case 'nest': {
      if (operation.into === operation.path || operation.into.startsWith(`${operation.path}.`))
        throw editError(`cannot nest "${operation.path}" into itself`, 'choose another container');
      const { structure, found } = locate(config.structure, operation.path);
      found.siblings.splice(found.index, 1);
      const target = parentList(structure, `${operation.into}.${found.field.name}`);
      if (target.siblings.some((f) => f.name === found.field.name))
        throw editError(`"${operation.into}" already has a field "${found.field.name}"`, 'rename one of them first');
      target.siblings.push(found.field);
      return { ...config, structure: target.structure };
    }
  }
}

/** Apply edits in order; the revision moves by one when the result differs from the input. */
export function applyEdits(config: ApiConfig, operations: EditOperation[]): { config: ApiConfig; changed: boolean } {
  let next = config;
  for (const operation of operations) next = applyEdit(next, operation);
  const changed = JSON.stringify({ ...next, revision: 0 }) !== JSON.stringify({ ...config, revision: 0 });
  return { config: changed ? { ...next, revision: config.revision + 1 } : config, changed };
}
