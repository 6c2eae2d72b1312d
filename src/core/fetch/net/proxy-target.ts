import { isIP } from 'node:net';
import { assertAllowedUrlHost, createGuardedLookup } from './address-guard.js';

/**
 * The address guard for a fetch through a proxy (docs/security.md): the proxy connects to the source, so the
 * connected socket is the proxy's, which is the operator's choice and may well be on a private address.
 * The source is checked here instead, before every request and redirect hop: a literal IP by its range, a
 * name by resolving it with the guarded lookup (every address it resolves to must be allowed). The proxy
 * resolves the name again when it connects; a name that answers differently to it, or that only the proxy
 * can resolve (a name this machine's DNS does not know passes: fetching through a proxy is how such
 * sources are reached), is the proxy's network's to guard.
 */
export async function assertAllowedProxiedTarget(url: string | URL, allowPrivateNetworks: boolean): Promise<void> {
  const target = typeof url === 'string' ? new URL(url) : url;
  assertAllowedUrlHost(target, allowPrivateNetworks);
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) return;
  const lookup = createGuardedLookup(allowPrivateNetworks);
  await new Promise<void>((resolve, reject) => {
    lookup(host, { all: true }, (error) => {
      const code = (error as { code?: unknown } | null)?.code;
      if (!error || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'ENODATA') resolve();
      else reject(error);
    });
  });
}
