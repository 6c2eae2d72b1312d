import { z } from 'zod';
import { HEADER_NAME_PATTERN } from './request.js';
import { secretTemplate } from './secrets.js';

/**
 * One entry of pagejson.json `models` (docs/models.md): an OpenAI-compatible Chat Completions endpoint and how
 * pagejson talks to it. Header values may hold `${NAME}` secrets, resolved from the environment when the
 * model's client is made and never written back or printed.
 */

export const DEFAULT_MAX_INPUT_TOKENS = 8_000;
export const DEFAULT_MODEL_MAX_RETRIES = 2;
const MAX_MODEL_HEADERS = 20;

/** Headers the client sets itself (or that describe the connection): a model entry cannot set them. */
const REFUSED_MODEL_HEADERS = new Set(['host', 'content-length', 'content-type', 'transfer-encoding', 'connection', 'keep-alive', 'te']);

function modelHeaderProblems(headers: Record<string, string>, context: z.RefinementCtx): void {
  const seen = new Set<string>();
  for (const name of Object.keys(headers)) {
    const lower = name.toLowerCase();
    if (!HEADER_NAME_PATTERN.test(name))
      context.addIssue({ code: 'custom', path: [name], message: `"${name.slice(0, 100)}" cannot be a header name` });
    else if (REFUSED_MODEL_HEADERS.has(lower))
      context.addIssue({ code: 'custom', path: [name], message: `models headers cannot set ${name}: the client sets it` });
    if (seen.has(lower)) context.addIssue({ code: 'custom', path: [name], message: `header ${name} is given twice` });
    seen.add(lower);
  }
  if (seen.size > MAX_MODEL_HEADERS) context.addIssue({ code: 'custom', message: `at most ${MAX_MODEL_HEADERS} headers` });
}

export const ModelEndpointSchema = z
  .object({
    baseURL: z.string().url(),
    model: z.string().min(1),
    apiKeyEnv: z.string().optional().describe('Name of the environment variable that holds the API key'),
    headers: z
      .record(z.string(), secretTemplate(8_192))
      .superRefine(modelHeaderProblems)
      .optional()
      .describe("Headers sent with every call (a proxy's key, a tenant); values may use ${NAME} from the environment, never printed"),
    timeoutMs: z
      .number()
      .int()
      .positive()
      .max(600_000)
      .optional()
      .describe(
        'Longest wait for one answer; past it the call fails with a timeout (default: 120000 in the CLI, fetch.timeoutMs in the daemon)',
      ),
    maxRetries: z
      .number()
      .int()
      .min(0)
      .max(5)
      .optional()
      .describe(`Retries of a failed call (connection, timeout, 429, 5xx) by the client (default ${DEFAULT_MODEL_MAX_RETRIES})`),
    maxAnswerBytes: z
      .number()
      .int()
      .min(1_024)
      .max(256 * 1024 * 1024)
      .optional()
      .describe('Longest answer read from the server, in bytes (default 4194304): more fails as "the model answered too much"'),
    temperature: z.number().min(0).max(2).optional().describe('Sampling temperature sent with every call (default 0)'),
    maxInputTokens: z
      .number()
      .int()
      // Below this the system prompt, the schema and one correction leave no room for the page.
      .min(2_000)
      .max(2_000_000)
      .optional()
      .describe(
        `Bound of every request (prompt, page regions, correction), estimated at 3 characters a token (default ${DEFAULT_MAX_INPUT_TOKENS})`,
      ),
  })
  .strict();
export type ModelEndpoint = z.infer<typeof ModelEndpointSchema>;
