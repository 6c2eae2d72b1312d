/**
 * The vocabulary of the config format as plain constants, apart from the zod schemas so that light code
 * (URL templates, edit operations, the CLI's start path) can use it without loading zod.
 */
export const API_ID_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;
// `__proto__` is refused as a name: as a key of a plain object it would set the object's prototype.
export const FIELD_NAME_PATTERN = /^(?!__proto__$)[A-Za-z_$][A-Za-z0-9_$-]{0,63}$/;
export const VARIABLE_NAME_PATTERN = /^(?!__proto__$)[A-Za-z_][A-Za-z0-9_]{0,63}$/;
export const CONFIG_FORMAT_VERSION = 1;

export const FIELD_TYPES = ['string', 'number', 'integer', 'boolean', 'url', 'date', 'object', 'array'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];
export const SCALAR_TYPES = ['string', 'number', 'integer', 'boolean', 'url', 'date'] as const;
export type ScalarType = (typeof SCALAR_TYPES)[number];

/** Transforms are a fixed vocabulary; `regex:` and `json:` carry an argument after the colon. */
export const TRANSFORM_PATTERN = /^(trim|number|integer|boolean|absoluteUrl|date|availability|plainText|regex:.+|json:.*)$/;
