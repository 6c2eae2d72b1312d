import { isDeepStrictEqual } from 'node:util';
import type { ProjectSettings } from './schema.js';

/**
 * The settings of pagejson.json that differ between what a daemon runs with and the file as it is now, as dotted
 * names (`extraction.maxElements`, `models.local`), leaf by leaf; a changed list or map of models is one name.
 * Names only, never values: a setting may name where a secret is read from.
 */
export function changedSettings(running: ProjectSettings, current: ProjectSettings): string[] {
  const changed: string[] = [];
  const walk = (a: unknown, b: unknown, path: string): void => {
    if (isDeepStrictEqual(a, b)) return;
    if (isRecord(a) && isRecord(b) && path.split('.').length < 2) {
      for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) walk(a[key], b[key], path ? `${path}.${key}` : key);
      return;
    }
    changed.push(path);
  };
  walk(running, current, '');
  return changed.sort();
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
