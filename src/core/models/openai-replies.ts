import { z } from 'zod';
import { FieldSchema, type Field } from '../config/index.js';
import { dropNulls } from './openai-prompts.js';

/**
 * Reading a model's reply. Servers that ignore the response format, and small models, answer with prose, with
 * the JSON inside a fenced block among prose, or with the schema they were given echoed back: each is a
 * problem stated in words, which the model is told once in a correction (openai.ts).
 */
export type Checked<T> = { ok: true; value: T } | { ok: false; problem: string };

const THINKING = /^\s*<think>[\s\S]*?<\/think>/;
const FENCE_ONLY = /^```(?:json|JSON)?\s*([\s\S]*?)\s*```$/;

/** A reply that is only a fenced block (after any reasoning block): readable, but not what was asked for. */
export function isFencedOnly(reply: string): boolean {
  return FENCE_ONLY.test(reply.replace(THINKING, '').trim());
}

export const FENCED_PROBLEM = 'the reply is inside a code fence: reply with only the JSON object, no code fence';

/**
 * The reply's JSON. A reply that is only a fenced block is read (some servers fence even in JSON mode), and so
 * is one after a `<think>…</think>` block.
 */
export function parseJson(reply: string): Checked<unknown> {
  // Reasoning models served locally (DeepSeek-R1, QwQ through Ollama or vLLM) think aloud before answering.
  const trimmed = reply.replace(THINKING, '').trim();
  const text = trimmed.replace(FENCE_ONLY, '$1');
  if (text === '') return { ok: false, problem: 'the reply is empty: reply with the JSON object' };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    if (trimmed.includes('```'))
      return {
        ok: false,
        problem: 'the reply has prose around a fenced code block: reply with only the JSON object, no prose and no code fence',
      };
    if (!/^[[{]/.test(text)) return { ok: false, problem: 'the reply is prose, not JSON: reply with only the JSON object' };
    return { ok: false, problem: `not JSON (${(error as Error).message.slice(0, 200)})` };
  }
}

const SCHEMA_KEYWORDS = ['$schema', '$defs', 'definitions', 'additionalProperties', 'required'];

/**
 * A reply that is the schema rather than an answer following it: equal to the schema sent, or an object with
 * `type: "object"` and `properties` plus schema keywords, where the answer should have had `expectedKeys`.
 */
export function isEchoedSchema(value: unknown, schema: Record<string, unknown>, expectedKeys: readonly string[]): boolean {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  if (JSON.stringify(value) === JSON.stringify(schema)) return true;
  const record = value as Record<string, unknown>;
  if (expectedKeys.some((key) => Object.hasOwn(record, key) && !(key === 'type' || key === 'properties'))) return false;
  return record.type === 'object' && Object.hasOwn(record, 'properties') && SCHEMA_KEYWORDS.some((key) => Object.hasOwn(record, key));
}

export const ECHOED_SCHEMA_PROBLEM =
  'the reply is the JSON Schema itself, not an answer that follows it: reply with the data the schema describes';

const StructureReplySchema = z.object({ structure: z.array(FieldSchema).min(1, 'the structure needs at least one field') });

export function parseStructureReply(reply: string, schema: Record<string, unknown>): Checked<Field[]> {
  const parsed = parseJson(reply);
  if (!parsed.ok) return parsed;
  if (isEchoedSchema(parsed.value, schema, ['structure'])) return { ok: false, problem: ECHOED_SCHEMA_PROBLEM };
  const result = StructureReplySchema.safeParse(normalizeReply(dropNulls(parsed.value)));
  if (!result.success) {
    const issue = result.error.issues[0];
    return { ok: false, problem: `${issue?.path.join('.') || 'reply'}: ${issue?.message ?? 'does not match the schema'}` };
  }
  const shapeProblem = result.data.structure.map((field) => containerProblem(field, field.name)).find(Boolean);
  if (shapeProblem) return { ok: false, problem: shapeProblem };
  return { ok: true, value: result.data.structure };
}

/** Empty transform lists mean "none"; the config format leaves them out. */
function normalizeReply(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalizeReply);
  if (value && typeof value === 'object') {
    // Keys came from the reply: a null-prototype object, so `__proto__` is a key like any other (and refused).
    const out = Object.create(null) as Record<string, unknown>;
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'transform' && Array.isArray(inner) && inner.length === 0) continue;
      out[key] = normalizeReply(inner);
    }
    return out;
  }
  return value;
}

/** Arrays need `fields` or `items`, objects need `fields`: rules zod's field schema leaves to config validation. */
function containerProblem(field: Field, path: string): string | undefined {
  if (field.type === 'array' && !field.fields && !field.items) return `${path}: an array needs fields or items`;
  if (field.type === 'object' && !field.fields) return `${path}: an object needs fields`;
  for (const child of field.fields ?? []) {
    const problem = containerProblem(child, `${path}.${child.name}`);
    if (problem) return problem;
  }
  return undefined;
}
