import { verifyApiKey } from '../core/access/key-service.js';
import type { Runtime } from '../core/runtime.js';
import { MESSAGES } from './errors.js';

/**
 * The key rows of the wire table for routes that are not one endpoint's (`/mcp`, `GET /external`, schemas):
 * a missing key, then an invalid one, else the apiIds the key may call (null: all).
 */
export type KeyScope =
  { ok: true; apikey: string; scope: string[] | null } | { ok: false; message: string; code: 'KEY_MISSING' | 'KEY_INVALID' };

export async function keyScope(runtime: Runtime, apikey: string | undefined): Promise<KeyScope> {
  if (!apikey) return { ok: false, message: MESSAGES.keyMissing, code: 'KEY_MISSING' };
  // Asked for no endpoint in particular: a scoped key answers `scope`, which is still a valid key.
  const verdict = await verifyApiKey(runtime.store, apikey, '', runtime.now());
  if (!verdict.ok && verdict.reason !== 'scope') return { ok: false, message: MESSAGES.keyInvalid, code: 'KEY_INVALID' };
  return { ok: true, apikey, scope: verdict.record.scope };
}

/** Whether an endpoint is one the key may call (active and in its scope). */
export function inScope(scope: string[] | null, config: { apiId: string; status: string }): boolean {
  return config.status === 'active' && (scope === null || scope.includes(config.apiId));
}
