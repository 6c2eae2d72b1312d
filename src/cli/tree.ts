import type { Field } from '../core/config/schema.js';

/**
 * The proposed structure as a tree, each field with its type, where it comes from (selector and attribute,
 * or the model) and its value in the sample, so a user can judge a proposal at a glance:
 *
 *   ├── title  string  ← h1  "All products"
 *   └── books  array[14]  ← article.product_pod
 *       ├── name  string  ← h3 a @title  "A Light in the Attic"
 */
export interface TreeStyle {
  name(text: string): string;
  dim(text: string): string;
  value(text: string): string;
}

const PLAIN: TreeStyle = { name: (t) => t, dim: (t) => t, value: (t) => t };
const MAX_VALUE_CHARS = 60;

export function renderStructureTree(structure: Field[], sample: unknown, style: TreeStyle = PLAIN): string {
  const lines: string[] = [];
  renderLevel(structure, asRecord(sample), '', lines, style);
  return lines.join('\n');
}

function renderLevel(
  fields: Field[],
  values: Record<string, unknown> | undefined,
  indent: string,
  lines: string[],
  style: TreeStyle,
): void {
  fields.forEach((field, index) => {
    const last = index === fields.length - 1;
    const value = values?.[field.name];
    const source =
      field.selector === undefined
        ? field.fields?.some((f) => f.selector !== undefined)
          ? ''
          : style.dim('← model')
        : style.dim(`← ${field.selector}${field.attribute ? ` @${field.attribute}` : ''}`);
    const type = field.type === 'array' ? `array[${Array.isArray(value) ? value.length : 0}]` : field.type;
    const shown = field.fields
      ? ''
      : style.value(formatValue(field.type === 'array' ? (Array.isArray(value) ? value.slice(0, 3) : value) : value));
    lines.push(`${indent}${last ? '└── ' : '├── '}${[style.name(field.name), style.dim(type), source, shown].filter(Boolean).join('  ')}`);
    if (field.fields) {
      // Nested values are shown from the first item: one item says what every item looks like.
      const inner = field.type === 'array' ? asRecord(Array.isArray(value) ? value[0] : undefined) : asRecord(value);
      renderLevel(field.fields, inner, `${indent}${last ? '    ' : '│   '}`, lines, style);
    }
  });
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

export function formatValue(value: unknown): string {
  if (value === undefined || value === null) return 'null';
  const text = JSON.stringify(value);
  return text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS - 1)}…` : text;
}
