import { verifyApiKey, verifyKeyId } from '../../access/index.js';
import { PagejsonError, wireText } from '../../shared/index.js';
import type { RetrievalContext } from '../context.js';
import type { RetrievalEnv } from '../env.js';

/** Where the key goes, for a caller who sent it the way most APIs take one. */
const BEARER_HINT = 'pagejson reads the key from the apikey header, not Authorization: send `apikey: <your key>`';

/** authenticate: the key rows. A key outside its scope is still a key here; `resolve` answers it `no data`. */
export async function authenticate(ctx: RetrievalContext, env: RetrievalEnv): Promise<void> {
  const request = ctx.request;
  const verdict =
    request.keyId === undefined
      ? await verifyApiKey(env.deps.store, request.apikey, request.apiId, ctx.atMs)
      : await verifyKeyId(env.deps.store, request.keyId, request.apiId, ctx.atMs);
  if (verdict.ok || verdict.reason === 'scope') {
    ctx.key = verdict.record;
    ctx.inScope = verdict.ok;
    return;
  }
  if (verdict.reason === 'invalid') throw new PagejsonError('KEY_INVALID', wireText('KEY_INVALID'));
  throw new PagejsonError('KEY_MISSING', wireText('KEY_MISSING'), request.keyAsBearer ? { context: { wireHint: BEARER_HINT } } : {});
}

/** resolve: the endpoint, in the key's scope and active. */
export function resolve(ctx: RetrievalContext, env: RetrievalEnv): undefined {
  const config = env.deps.configs.get(ctx.request.apiId);
  if (!config || !ctx.inScope) throw new PagejsonError('NO_DATA', wireText('NO_DATA'), { context: { apiId: ctx.request.apiId } });
  if (config.status === 'inactive')
    throw new PagejsonError('ENDPOINT_INACTIVE', wireText('ENDPOINT_INACTIVE'), { context: { apiId: config.apiId } });
  ctx.config = config;
  return undefined;
}
