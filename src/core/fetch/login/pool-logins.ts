import type { Agent } from 'undici';
import { PagejsonError } from '../../shared/index.js';
import { createGuardedAgent } from '../net/guarded-agent.js';
import { createProxyDispatchers, type ProxyDispatchers } from '../net/proxy-dispatchers.js';
import type { ProxyChooser } from '../net/proxy-rotation.js';
import { assertAllowedProxiedTarget } from '../net/proxy-target.js';
import type { FetchRequest, FetchResult, Scraper } from '../scrapers/types.js';
import type { BrowserLoginJob, LoginManager, LoginTransport } from './login-manager.js';
import type { BrowserStorage } from './session-codec.js';
import { createMemorySessionStore, type SessionStore } from './session-stores.js';
import type { FetchLogin, LoggedInProbe } from './types.js';

/**
 * The scraper pool's logins (docs/access.md, "Logins"): where its sessions are kept, how `loggedIn` is checked,
 * and how a form login reaches the site. Without settings, sessions live in memory and `loggedIn` is not
 * checked; the daemon keeps them in its data dir or Redis and checks in the extraction pool (runtime.ts).
 */
export interface PoolLoginOptions {
  store?: SessionStore;
  /** Where `${NAME}` in logins is read (default: the pool's environment). */
  env?: Readonly<Record<string, string | undefined>>;
  probe?: LoggedInProbe;
  now?: () => number;
  /** How a form login reaches the login page; default: direct, through the address guard. */
  transport?: (url: URL, request: FetchRequest) => Promise<LoginTransport> | LoginTransport;
}

/** A scraper that can run a login's browser steps (scraper 3). */
export interface SignsIn {
  signIn(job: BrowserLoginJob): Promise<BrowserStorage>;
}

function canSignIn(scraper: Scraper): scraper is Scraper & SignsIn {
  return typeof (scraper as Partial<SignsIn>).signIn === 'function';
}

export interface PoolLogins {
  fetch(request: FetchRequest & { login: FetchLogin }, fetchOnce: (request: FetchRequest) => Promise<FetchResult>): Promise<FetchResult>;
  close(): Promise<void>;
}

export function createPoolLogins(
  settings: {
    timeoutMs: number;
    maxBytes: number;
    allowPrivateNetworks: boolean;
    env?: Readonly<Record<string, string | undefined>> | undefined;
  },
  options: PoolLoginOptions | undefined,
  parts: { browser: () => Promise<Scraper>; proxies?: ProxyChooser | undefined },
): PoolLogins {
  let agent: Agent | undefined;
  let proxied: ProxyDispatchers | undefined;
  let manager: Promise<LoginManager> | undefined;
  /**
   * The endpoint's proxy when it has one (its config's, else fetch.proxy, else the environment's): the one its
   * fetches would try first, so a sticky rotation signs in and fetches through the same exit (docs/access.md).
   */
  const direct = async (url: URL, request: FetchRequest): Promise<LoginTransport> => {
    const candidate = parts.proxies?.proxyFor(request.login?.endpoint ?? '', request.access?.proxy, url);
    if (!candidate)
      return {
        dispatcher: (agent ??= createGuardedAgent({ allowPrivateNetworks: settings.allowPrivateNetworks, timeoutMs: settings.timeoutMs })),
        checkHost: true,
      };
    await assertAllowedProxiedTarget(url, settings.allowPrivateNetworks);
    return { dispatcher: (proxied ??= createProxyDispatchers({ timeoutMs: settings.timeoutMs })).for(candidate), checkHost: false };
  };
  // Made with the first login: a pool whose endpoints have none never loads tough-cookie or opens a store.
  const made = (): Promise<LoginManager> =>
    (manager ??= import('./login-manager.js').then(({ createLoginManager }) =>
      createLoginManager({
        store: options?.store ?? createMemorySessionStore(),
        env: options?.env ?? settings.env ?? {},
        timeoutMs: settings.timeoutMs,
        maxBytes: settings.maxBytes,
        allowPrivateNetworks: settings.allowPrivateNetworks,
        transport: options?.transport ?? direct,
        async browserLogin(job) {
          const scraper = await parts.browser();
          if (!canSignIn(scraper))
            throw new PagejsonError('LOGIN_FAILED', 'this scraper cannot run login steps', { hint: 'login.steps need scraper 3' });
          return scraper.signIn(job);
        },
        ...(options?.probe ? { probe: options.probe } : {}),
        ...(options?.now ? { now: options.now } : {}),
      }),
    ));
  return {
    fetch: async (request, fetchOnce) => (await made()).fetch(request, fetchOnce),
    async close() {
      await (await manager?.catch(() => undefined))?.close();
      await agent?.close().catch(() => undefined);
      await proxied?.close();
    },
  };
}
