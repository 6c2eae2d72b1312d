import type { Field } from '../../config/index.js';
import { toWebUrl } from './transforms.js';

/**
 * Values a model filled (fields without a selector), held to the rule extraction holds a page's values to: a
 * `url` value is an http(s) URL or null (a relative one resolved against the page), and in a list of urls any
 * other item is left out. A model reads the page, so a page can make it answer `javascript:…`; API consumers
 * that put `url` values into links must never receive that either (docs/security.md, `url` values). Objects
 * and lists of objects are walked field by field; every other value is left as the model gave it.
 */
export function webUrlsOnly(field: Pick<Field, 'type' | 'items' | 'fields'>, value: unknown, pageUrl: string): unknown {
  if (field.type === 'url') return toWebUrl(value, pageUrl);
  const fields = field.fields && field.fields.length > 0 ? field.fields : undefined;
  if (field.type === 'object') return fields ? webUrlsIn(fields, value, pageUrl) : value;
  if (field.type !== 'array' || !Array.isArray(value)) return value;
  if (fields) return value.map((item: unknown) => webUrlsIn(fields, item, pageUrl));
  if (field.items?.type !== 'url') return value;
  return value.map((item: unknown) => toWebUrl(item, pageUrl)).filter((item) => item !== null);
}

/** The same over an object's fields (a model's whole answer, or one object of it); anything else as it is. */
export function webUrlsIn(
  fields: ReadonlyArray<Pick<Field, 'name' | 'type' | 'items' | 'fields'>>,
  value: unknown,
  pageUrl: string,
): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const record = value as Record<string, unknown>;
  const kept: Record<string, unknown> = { ...record };
  for (const field of fields) if (Object.hasOwn(record, field.name)) kept[field.name] = webUrlsOnly(field, record[field.name], pageUrl);
  return kept;
}
