import { backChoice, input, select } from './ask.js';
import type { ApiConfig } from '../../core/config/schema.js';
import { PLACEHOLDER_PATTERN } from '../../core/config/url-template.js';
import type { EditOperation } from '../../core/edit/operations.js';

/**
 * The URL editor of docs/wire.md, variables: every path segment and every query parameter listed with its own
 * toggle; making one dynamic asks for its variable name. Returns the edits the user chose.
 */
interface UrlPart {
  spec: string;
  label: string;
  variable?: string;
  value: string;
}

export function urlParts(url: string): UrlPart[] {
  const match = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*([^?#]*)(?:\?([^#]*))?/.exec(url);
  if (!match) return [];
  const parts: UrlPart[] = [];
  const variableOf = (text: string): string | undefined => new RegExp(`^${PLACEHOLDER_PATTERN.source}$`).exec(text)?.[1];
  (match[1] ?? '')
    .split('/')
    .slice(1)
    .forEach((segment, index) => {
      if (segment === '') return;
      const variable = variableOf(segment);
      parts.push({ spec: `path:${index + 1}`, label: `path segment ${index + 1}`, value: segment, ...(variable ? { variable } : {}) });
    });
  for (const pair of (match[2] ?? '').split('&').filter(Boolean)) {
    const [key = '', ...rest] = pair.split('=');
    const value = rest.join('=');
    const variable = variableOf(value);
    parts.push({
      spec: `query:${decodeURIComponent(key)}`,
      label: `query ${decodeURIComponent(key)}`,
      value,
      ...(variable ? { variable } : {}),
    });
  }
  return parts;
}

function suggestedName(part: UrlPart): string {
  if (part.spec.startsWith('query:'))
    return part.spec
      .slice('query:'.length)
      .replace(/[^A-Za-z0-9_]/g, '_')
      .replace(/^([0-9])/, '_$1');
  return `segment${part.spec.slice('path:'.length)}`;
}

export async function editUrlVariables(config: ApiConfig): Promise<EditOperation[]> {
  const operations: EditOperation[] = [];
  const parts = urlParts(config.url);
  if (parts.length === 0) return operations;
  const choice = await select({
    message: 'Toggle which part of the URL? (dynamic parts are filled from the request body)',
    pageSize: 15,
    choices: [
      ...parts.map((part) => ({
        value: part.spec,
        name: part.variable
          ? `[x] ${part.label}: {{ ${part.variable} }}  (example ${JSON.stringify(config.variables[part.variable]?.example ?? '')})`
          : `[ ] ${part.label}: ${part.value}`,
      })),
      { value: '', name: 'Done' },
      backChoice,
    ],
  });
  const part = parts.find((p) => p.spec === choice);
  if (!part) return operations;
  if (part.variable) {
    operations.push({ kind: 'unvar', name: part.variable });
  } else {
    const name = await input({
      message: `Variable name for ${part.label}`,
      default: suggestedName(part),
      validate: (value) => /^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(value) || 'letters, digits and _, starting with a letter or _',
    });
    operations.push({ kind: 'var', spec: part.spec, name });
  }
  return operations;
}
