import { PagejsonError } from '../../shared/index.js';

/**
 * LOGIN_FAILED (docs/wire.md): what went wrong with a login, in words, never with a value of the form; the hint
 * goes on the wire too, since only the config's owner can fix a login.
 */
export function loginFailed(reason: string, hint: string, context: Record<string, unknown> = {}): PagejsonError {
  return new PagejsonError('LOGIN_FAILED', reason, { context: { ...context, wireHint: hint }, hint });
}
