import { join } from 'node:path';
import { z } from 'zod';
import { readChecked, writeFileAtomic } from '../shared/index.js';

/**
 * How a reply's structure is asked for, best first (docs/models.md, "Response formats"): `json_schema`
 * (structured outputs), `json_object` (JSON mode, the schema in the prompt), and a plain prompt that asks for
 * JSON. Servers refuse what they do not support with a 400 (OpenAI's older models, vLLM and llama.cpp refuse
 * json_schema; LM Studio refuses json_object): the next one down is tried, and what the server accepted is
 * remembered per baseURL and model, for the process and in the data dir for later runs.
 */
export type FormatMode = 'json_schema' | 'json_object' | 'prompt';
export const FORMAT_LADDER: readonly FormatMode[] = ['json_schema', 'json_object', 'prompt'];

export function nextFormat(mode: FormatMode): FormatMode | undefined {
  return FORMAT_LADDER[FORMAT_LADDER.indexOf(mode) + 1];
}

/** The words a refusal of the response format says, in the bodies real servers send. */
const FORMAT_WORDS = /response_format|response format|json_schema|json_object|structured output|guided_json|grammar/i;

/** A 400 (422 from FastAPI-based servers) that says the server does not take the response format asked for. */
export function isFormatRefusal(error: unknown): boolean {
  const status = (error as { status?: unknown }).status;
  if (status !== 400 && status !== 422) return false;
  return FORMAT_WORDS.test(String((error as { message?: unknown }).message ?? ''));
}

export const FORMATS_FILE = 'model-formats.json';
const MAX_FORMATS_FILE_BYTES = 256 * 1024;
const MAX_REMEMBERED = 500;

const FormatsFileSchema = z.object({
  version: z.literal(1),
  models: z
    .array(
      z.object({ baseURL: z.string().max(2_000), model: z.string().max(500), format: z.enum(['json_schema', 'json_object', 'prompt']) }),
    )
    .max(MAX_REMEMBERED),
});

export interface FormatMemory {
  get(baseURL: string, model: string): Promise<FormatMode | undefined>;
  /** Remembers what the server accepted; written to the data dir only when it changed. */
  set(baseURL: string, model: string, mode: FormatMode): Promise<void>;
}

/** For the process: shared by every model and resolver of this thread. Keys are built here, never plain-object keys. */
const processMemory = new Map<string, FormatMode>();
const keyOf = (baseURL: string, model: string): string => `${baseURL}\u0000${model}`;

async function readFile(file: string): Promise<Map<string, FormatMode>> {
  const found = new Map<string, FormatMode>();
  const read = await readChecked(file, { root: join(file, '..'), maxBytes: MAX_FORMATS_FILE_BYTES, timeoutMs: 2_000 });
  if ('refused' in read) return found;
  try {
    const parsed = FormatsFileSchema.safeParse(JSON.parse(read.bytes.toString('utf8')));
    // A damaged file is forgotten, not an error: the ladder finds the format again.
    if (parsed.success) for (const entry of parsed.data.models) found.set(keyOf(entry.baseURL, entry.model), entry.format);
  } catch {
    return found;
  }
  return found;
}

/**
 * The memory of accepted formats; with `dataDir`, also `<dataDir>/model-formats.json` (read once, rewritten
 * whole when a format changes). Without it (tests, a project-less call), the process alone remembers.
 */
export function createFormatMemory(dataDir: string | undefined): FormatMemory {
  const file = dataDir ? join(dataDir, FORMATS_FILE) : undefined;
  let loaded: Promise<void> | undefined;
  const load = (): Promise<void> => {
    loaded ??= file
      ? readFile(file).then((found) => {
          for (const [key, mode] of found) if (!processMemory.has(key)) processMemory.set(key, mode);
        })
      : Promise.resolve();
    return loaded;
  };
  return {
    async get(baseURL, model) {
      await load();
      return processMemory.get(keyOf(baseURL, model));
    },
    async set(baseURL, model, mode) {
      await load();
      const key = keyOf(baseURL, model);
      if (processMemory.get(key) === mode) return;
      processMemory.set(key, mode);
      if (!file) return;
      const onDisk = await readFile(file);
      onDisk.set(key, mode);
      const models = [...onDisk.entries()].slice(-MAX_REMEMBERED).map(([entry, format]) => {
        const [url, name] = entry.split('\u0000') as [string, string];
        return { baseURL: url, model: name, format };
      });
      // Losing this file costs one refused call later: a failed write is not the generation's failure.
      await writeFileAtomic(file, `${JSON.stringify({ version: 1, models }, null, 2)}\n`).catch(() => undefined);
    },
  };
}

/** Forgets what this process learnt (tests start each case afresh). */
export function forgetFormats(): void {
  processMemory.clear();
}
