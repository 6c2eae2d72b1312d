import { LRUCache } from 'lru-cache';
import type { ApiConfig } from '../../config/index.js';
import { compileStructure, outlineStructure, type CompiledStructure, type StructureOutline } from './compile.js';

/**
 * Compiled structures memoised per apiId + revision (docs/performance.md: compile once per revision, not
 * per request), bounded so a long-running daemon that sees many revisions does not grow without end.
 *
 * A hand-edited config may change without its revision being bumped, so a hit is confirmed: the same
 * structure object (the common case, a cheap identity check) or, when the object differs, the same JSON.
 */

const MAX_COMPILED = 4096;

interface Entry {
  structure: ApiConfig['structure'];
  selector: string;
  fingerprint: string;
  compiled: CompiledStructure;
}

const compiledByRevision = new LRUCache<string, Entry>({ max: MAX_COMPILED });

type StructureSource = Pick<ApiConfig, 'apiId' | 'revision' | 'structure'> & { selector?: string | undefined };

export function getCompiledStructure(config: StructureSource): CompiledStructure {
  const key = `${config.apiId}\u0000${config.revision}`;
  const selector = config.selector ?? 'body';
  const entry = compiledByRevision.get(key);
  if (entry && entry.structure === config.structure && entry.selector === selector) return entry.compiled;
  const fingerprint = structureFingerprint(selector, config.structure);
  if (entry && entry.fingerprint === fingerprint) {
    entry.structure = config.structure;
    entry.selector = selector;
    return entry.compiled;
  }
  const compiled = compileStructure({ selector, structure: config.structure });
  compiledByRevision.set(key, { structure: config.structure, selector, fingerprint, compiled });
  return compiled;
}

/**
 * Outlines are kept per structure object: a config's structure is one object for as long as the config is
 * loaded, and a reloaded or edited config brings a new one, so an outline goes when its config goes.
 */
const outlines = new WeakMap<ApiConfig['structure'], StructureOutline>();

/** The structure's outline (model fields, `assess`), for a thread that does not extract (compile.ts). */
export function getStructureOutline(structure: ApiConfig['structure']): StructureOutline {
  let outline = outlines.get(structure);
  if (!outline) {
    outline = outlineStructure(structure);
    outlines.set(structure, outline);
  }
  return outline;
}

/** The fingerprint the memo confirms a structure by: the JSON text of `[selector, structure]`. */
export function structureFingerprint(selector: string | undefined, structure: ApiConfig['structure']): string {
  return JSON.stringify([selector ?? 'body', structure]);
}

/**
 * The compiled structure for a fingerprint (a job posted to a worker thread carries no field tree): the memo's
 * entry when its fingerprint is the same text, else the structure parsed from the fingerprint and compiled.
 */
export function getCompiledStructureByFingerprint(apiId: string, revision: number, fingerprint: string): CompiledStructure {
  const key = `${apiId}\u0000${revision}`;
  const entry = compiledByRevision.get(key);
  if (entry && entry.fingerprint === fingerprint) return entry.compiled;
  const [selector, structure] = JSON.parse(fingerprint) as [string, ApiConfig['structure']];
  const compiled = compileStructure({ selector, structure });
  compiledByRevision.set(key, { structure, selector, fingerprint, compiled });
  return compiled;
}

/** For tests and config reloads that want to drop everything compiled so far. */
export function clearCompiledStructures(): void {
  compiledByRevision.clear();
}
