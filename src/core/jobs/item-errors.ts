import { isPagejsonError, wireRow, type WireCode } from '../shared/index.js';

/**
 * A failed item's errors as the wire says them (docs/wire.md): the same words a caller of /external reads for
 * the same failure, from the one error table, so a job's `errors` never carry what the wire keeps back (a
 * model server's words, an internal message).
 */
export function wireErrorsOf(error: unknown): Array<{ message: string; code: string }> {
  if (!isPagejsonError(error)) return [{ message: wireRow('INTERNAL').message.text, code: 'INTERNAL' }];
  const row = wireRow(error.code);
  if (!row.codes.includes(error.code as WireCode)) return [{ message: wireRow('INTERNAL').message.text, code: 'INTERNAL' }];
  const message = row.message;
  if (message.kind === 'per-problem') {
    const problems = Array.isArray(error.context.problems) ? (error.context.problems as Array<{ code?: unknown; message?: unknown }>) : [];
    const usable = problems.filter((problem) => typeof problem.code === 'string' && typeof problem.message === 'string');
    if (usable.length > 0) return usable.map((problem) => ({ message: problem.message as string, code: problem.code as string }));
    return [{ message: error.message, code: error.code }];
  }
  if (message.kind === 'prefixed')
    return [{ message: error.message.startsWith(message.text) ? error.message : `${message.text}${error.message}`, code: error.code }];
  return [{ message: message.kind === 'fixed' ? message.text : error.message, code: error.code }];
}
