import { writeFileAtomic } from '../shared/index.js';
import type { ApiConfig, ApiConfigInput, Field } from './schema.js';

/** Key order of a config file: fixed, so that a one-field change is a one-line git diff. */
const CONFIG_KEY_ORDER = [
  '$schema',
  'apiId',
  'description',
  'revision',
  'status',
  'url',
  'variables',
  'scraper',
  'session',
  'request',
  'proxy',
  'caching',
  'model',
  'selector',
  'rule',
  'monitor',
  'actions',
  'pagination',
  'structure',
  'generated',
] as const;

/** Where a config file finds its JSON Schema: `pagejson init` publishes it beside the configs. */
export const CONFIG_SCHEMA_REF = './pagejson.config.schema.json';
const FIELD_KEY_ORDER = ['name', 'type', 'selector', 'attribute', 'transform', 'description', 'required', 'items', 'fields'] as const;

function ordered<T extends object>(value: T, order: readonly string[]): T {
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of order) if (source[key] !== undefined) out[key] = source[key];
  for (const key of Object.keys(source).sort()) if (!(key in out) && source[key] !== undefined) out[key] = source[key];
  return out as T;
}

function orderField(field: Field): Field {
  const out = ordered(field, FIELD_KEY_ORDER);
  if (field.fields) out.fields = field.fields.map(orderField);
  if (field.items) out.items = ordered(field.items, ['type', 'attribute', 'transform']);
  return out;
}

/** Deterministic text of a config: 2-space JSON, stable key order, trailing newline. */
export function serializeConfig(config: ApiConfig | ApiConfigInput): string {
  const top = ordered(config, CONFIG_KEY_ORDER) as ApiConfig;
  top.structure = config.structure.map(orderField);
  if (config.variables) {
    const vars: Record<string, unknown> = {};
    for (const name of Object.keys(config.variables)) vars[name] = ordered(config.variables[name]!, ['example', 'pattern', 'description']);
    top.variables = vars as ApiConfig['variables'];
  }
  return `${JSON.stringify(top, null, 2)}\n`;
}

export async function writeConfigFile(path: string, config: ApiConfig | ApiConfigInput): Promise<void> {
  await writeFileAtomic(path, serializeConfig(config));
}
