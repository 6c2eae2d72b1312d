import { relative } from 'node:path';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { API_ID_PATTERN } from '../../core/config/constants.js';
import { isPagejsonError, PagejsonError, type ErrorCode } from '../../core/shared/errors.js';
import { KEY_ID_PATTERN } from '../../core/access/keys.js';
import type { ConfigProblem } from '../../core/config/problems.js';
import type { Runtime } from '../../core/runtime.js';
import type { StateOperations } from '../../core/access/state-service.js';
import type { PageSampler } from './page-sampler.js';

/** What every group of dashboard routes shares: the context they work in, input parsing and error answers. */
export interface DashboardApiContext {
  runtime: Runtime;
  publicUrl: () => string;
  state: StateOperations;
  pages: PageSampler;
}

const STATUS_BY_CODE: Partial<Record<ErrorCode, number>> = {
  USAGE: 400,
  CONFIG_INVALID: 422,
  TEMPLATE_INVALID: 422,
  CONFIG_EXISTS: 409,
  CONFIG_NOT_FOUND: 404,
  KEY_NOT_FOUND: 404,
  ACCOUNT_NOT_FOUND: 404,
  KEY_INVALID: 409,
  NO_CREDITS: 402,
  MODEL_NOT_FOUND: 400,
  VARIABLE_MISSING: 400,
  VARIABLE_UNKNOWN: 400,
  VARIABLE_NOT_STRING: 400,
  VARIABLE_PATTERN: 400,
  VARIABLE_TOO_LONG: 400,
  SHUTTING_DOWN: 503,
};

function statusOf(code: ErrorCode): number {
  return (
    STATUS_BY_CODE[code] ??
    (code.startsWith('FETCH_') || code.startsWith('EXTRACTION_') || code.startsWith('MODEL_') || code === 'BROWSER_UNAVAILABLE' ? 502 : 500)
  );
}

export const ApiIdParam = z.object({ apiId: z.string().regex(API_ID_PATTERN, 'not an apiId') });
export const KeyIdParam = z.object({ id: z.string().regex(KEY_ID_PATTERN, 'not a key id') });

/** Parse outside input with a schema; a failure is a USAGE error naming the first problem. */
export function parse<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value ?? {});
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const at = issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
  throw new PagejsonError('USAGE', `${what}${at}: ${issue.message}`);
}

export function sendError(reply: FastifyReply, error: unknown): FastifyReply {
  if (isPagejsonError(error)) {
    const problems = error.context.problems;
    return reply.code(statusOf(error.code)).send({
      error: {
        code: error.code,
        message: error.message,
        ...(error.hint ? { hint: error.hint } : {}),
        ...(Array.isArray(problems) ? { problems } : {}),
      },
    });
  }
  const status = (error as { statusCode?: number }).statusCode;
  if (status !== undefined && status >= 400 && status < 500)
    return reply.code(status).send({ error: { code: 'USAGE', message: (error as Error).message } });
  return reply.code(500).send({ error: { code: 'INTERNAL', message: `the dashboard request failed: ${(error as Error).message}` } });
}

/** Problems as the page shows them: files named from the project root, never as machine paths. */
export function shownProblems(runtime: Runtime, problems: ConfigProblem[]): ConfigProblem[] {
  return problems.map((problem) => ({ ...problem, file: relative(runtime.project.root, problem.file) }));
}
