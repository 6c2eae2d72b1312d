import type { Field } from '../config/index.js';

/** The model seam: proposes a structure at generation; fills model fields (fields without selector) at retrieval. */
export interface GenerateInput {
  /** HTML of the section the config's CSS selector picks (outer HTML of each match, concatenated). */
  sectionHtml: string;
  /** The whole page, for page-level facts (title, meta, JSON-LD in head). */
  pageHtml: string;
  pageUrl: string;
  selector: string;
  rule: string | null;
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

export interface GenerateOutput {
  structure: Field[];
  usage?: TokenUsage;
  /** Fields the model asked for that matched nothing on the page: dropped or made model fields, and why. */
  fieldNotes?: Array<{ field: string; outcome: 'dropped' | 'model field'; reason: string }>;
}

export interface FillInput {
  sectionHtml: string;
  pageUrl: string;
  /** The model fields only, with their descriptions. */
  fields: Field[];
  /** JSON Schema (2020-12) of the object to return, one property per model field. */
  jsonSchema: Record<string, unknown>;
  rule: string | null;
}

export interface FillOutput {
  values: Record<string, unknown>;
  usage?: TokenUsage;
}

export interface Model {
  readonly name: string;
  generate(input: GenerateInput): Promise<GenerateOutput>;
  fill(input: FillInput): Promise<FillOutput>;
}
