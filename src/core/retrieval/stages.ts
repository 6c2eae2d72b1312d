import { RetrievalContext } from './context.js';
import { failed } from './failure.js';
import type { RetrievalAnswer, RetrievalRequest } from './types.js';
import type { RetrievalEnv } from './env.js';
import { authenticate, resolve } from './stages/admission.js';
import { locate, readInput } from './stages/input.js';
import { charge, limit, price, settle } from './stages/credits.js';
import { load, lookUp, record } from './stages/answer.js';

/**
 * Retrieval as an ordered list of stages over one context (context.ts). Each stage is a small function that
 * reads what the stages before it wrote and writes its own fields; the first one that throws decides the
 * answer, so the list's order is the wire contract's order of precedence (docs/wire.md). A stage returns a
 * promise only when it waits for something, and only then does the runner await: the list is made once, and a
 * request is one context and no closures.
 *
 *   authenticate → resolve → read input → locate → price → cache → limit → charge → load → settle → record
 *
 * (`load` is the page pipeline of retrieve.ts, fetch → classify → extract → assess, run by the cache.)
 */
export type Stage = (ctx: RetrievalContext, env: RetrievalEnv) => Promise<void> | undefined;

export const RETRIEVAL_STAGES: readonly Stage[] = [
  authenticate,
  resolve,
  readInput,
  locate,
  price,
  lookUp,
  limit,
  charge,
  load,
  settle,
  record,
];

/**
 * One request through the stages. One async function for the whole request (each async layer of a hit is a
 * promise and a microtask more). A failure goes through failed.ts, which settles what the stages left.
 */
export async function runRetrieval(request: RetrievalRequest, env: RetrievalEnv): Promise<RetrievalAnswer> {
  const ctx = new RetrievalContext(request, env.nowMs());
  try {
    for (let index = 0; index < RETRIEVAL_STAGES.length; index += 1) {
      const waiting = RETRIEVAL_STAGES[index]!(ctx, env);
      if (waiting !== undefined) await waiting;
    }
  } catch (error) {
    throw await failed(ctx, env, error);
  }
  return ctx;
}
