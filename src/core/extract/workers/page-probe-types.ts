import type { ApiConfig } from '../../config/index.js';
import type { DocumentLimits } from '../engine/dom.js';

/** What a page probe asks its thread (page-probe.ts); every answer is data. */
export type ProbeStructure = Pick<ApiConfig, 'selector' | 'structure'>;

export type ProbeQuery =
  /** The page is parsed (within the document limits): nothing else to do. */
  | { kind: 'ready' }
  /** The data `config` extracts from the page. */
  | { kind: 'sample'; config: ProbeStructure }
  /** A selector's matches on the whole page, and the first values. */
  | { kind: 'preview'; selector: string; attribute?: string }
  /** A selector's matches where a field of `parentPath` is read (fieldContexts), with their attributes. */
  | { kind: 'matches'; config: ProbeStructure; parentPath: string[]; selector: string; all: boolean };

export interface ProbePage {
  html: string;
  finalUrl: string;
  limits: DocumentLimits;
}

export interface SelectorPreview {
  count: number;
  /** The first three values. */
  values: string[];
}

export interface MatchSummary {
  /** Places the selector was tried in (1 for a top-level field, one per item for a field of an array). */
  contexts: number;
  /** Of those, how many it matched something in. */
  matchedContexts: number;
  /** The elements a field would read: the first match in each context (all matches for a list). */
  count: number;
  /** The first few values, as text. */
  values: string[];
  /** Attributes the matched elements carry, most common first, with how many carry each and a first value. */
  attributes: Array<{ name: string; count: number; example?: string }>;
}

export type ProbeMessage = { id: number; query: ProbeQuery };
