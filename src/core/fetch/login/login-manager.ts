import { createHash } from 'node:crypto';
import type { Dispatcher } from 'undici';
import { CookieJar } from 'tough-cookie';
import { resolveSecretRecord, resolveSecrets, type Action, type LoginSettings, type ProxySettings } from '../../config/index.js';
import { isPagejsonError, PagejsonError } from '../../shared/index.js';
import { startDeadline } from '../net/deadline.js';
import type { FetchRequest, FetchResult } from '../scrapers/types.js';
import { formLogin } from './form-login.js';
import { loginFailed } from './login-errors.js';
import { jarOfBrowserCookies, jarText, newSessionId, sessionOf, storedOf, type BrowserStorage } from './session-codec.js';
import type { SessionStore } from './session-stores.js';
import type { FetchLogin, LoggedInProbe, LoginSession } from './types.js';

/**
 * Logins of endpoints (docs/access.md, "Logins"): a fetch of an endpoint with a `login` goes with its session,
 * made once and kept (session-stores.ts), reused across fetches, restarts and daemons on one Redis, and renewed
 * only when the site ends it: the page answers 401/403, redirects to the login page, or lacks `loggedIn`. One
 * login at a time per endpoint (concurrent fetches wait for it; daemons on Redis take a lock). A login that
 * fails is LOGIN_FAILED and is remembered: until its wait has passed (1 minute, doubling while it keeps failing,
 * at most 30 minutes) every fetch of the endpoint fails with it, without asking the site again.
 */
type Env = Readonly<Record<string, string | undefined>>;

export interface LoginTransport {
  dispatcher: Dispatcher;
  /** False through a proxy: the target was checked by name, the connected address is the proxy's. */
  checkHost: boolean;
  headersFor?: (url: URL) => Record<string, string>;
}

export interface BrowserLoginJob {
  url: string;
  /** The endpoint and its config's `proxy`: the steps leave through the proxy its fetches would take first. */
  endpoint?: string | undefined;
  proxy?: ProxySettings | undefined;
  /** The steps with `${NAME}` resolved. */
  steps: readonly Action[];
  signal: AbortSignal;
  deadlineAt: number;
}

export interface LoginManagerOptions {
  store: SessionStore;
  env: Env;
  timeoutMs: number;
  maxBytes: number;
  allowPrivateNetworks: boolean;
  /** How a form login reaches the login page (direct, or the endpoint's proxy). */
  transport(url: URL, request: FetchRequest): Promise<LoginTransport> | LoginTransport;
  /** Browser steps in scraper 3's browser: its storage state afterwards. */
  browserLogin?(job: BrowserLoginJob): Promise<BrowserStorage>;
  /** The `loggedIn` check, where pages are parsed (the extraction pool); without one, `loggedIn` is not checked. */
  probe?: LoggedInProbe;
  now?: () => number;
}

export interface LoginManager {
  /** A fetch with the endpoint's session; `fetchOnce` is the pool's plain fetch. */
  fetch(request: FetchRequest & { login: FetchLogin }, fetchOnce: (request: FetchRequest) => Promise<FetchResult>): Promise<FetchResult>;
  close(): Promise<void>;
}

export const FIRST_FAILURE_WAIT_MS = 60_000;
export const MAX_FAILURE_WAIT_MS = 30 * 60_000;

interface Held {
  key: string;
  session: LoginSession;
  createdAt: string;
  /** The jar as last written, to write it again only when a fetch changed it. */
  written: string;
}

/** A session and whether this call made it (a page that still looks signed out is then the login's failure). */
interface Obtained {
  held: Held;
  fresh: boolean;
}

interface Failure {
  key: string;
  error: PagejsonError;
  until: number;
  strikes: number;
}

/** A digest of the login as written: a changed login does not reuse a session made with another one. */
export function loginKey(settings: LoginSettings): string {
  return createHash('sha256')
    .update(JSON.stringify([settings.url, settings.form ?? null, settings.steps ?? null]))
    .digest('hex')
    .slice(0, 32);
}

function resolveSteps(steps: readonly Action[], env: Env, at: string): Action[] {
  return steps.map((step, index) => {
    const where = `${at}[${index}]`;
    return {
      ...step,
      ...(step.text !== undefined ? { text: resolveSecrets(step.text, env, `${where}.text`) } : {}),
      ...(step.value !== undefined ? { value: resolveSecrets(step.value, env, `${where}.value`) } : {}),
      ...(step.then ? { then: resolveSteps(step.then, env, `${where}.then`) } : {}),
    };
  });
}

/** Why a fetched page shows the session ended, or undefined when it looks signed in. */
async function endedBy(
  page: FetchResult,
  login: FetchLogin,
  loginUrl: string,
  probe: LoggedInProbe | undefined,
  signal: AbortSignal | undefined,
): Promise<string | undefined> {
  const final = new URL(page.finalUrl);
  const target = new URL(loginUrl);
  if (final.origin === target.origin && final.pathname === target.pathname) return 'the page redirected to the login page';
  const selector = login.settings.loggedIn;
  if (selector && probe && !(await probe(page, selector, signal))) return `the page lacks the loggedIn element (${selector})`;
  return undefined;
}

function statusEnded(error: unknown): string | undefined {
  if (!isPagejsonError(error) || error.code !== 'FETCH_STATUS') return undefined;
  const status = error.context.status;
  return status === 401 || status === 403 ? `the page answered HTTP ${status}` : undefined;
}

function turnedAway(login: FetchLogin, ended: string): PagejsonError {
  return loginFailed(
    `signed in, but ${ended}`,
    login.settings.loggedIn
      ? 'check login.loggedIn against the page as a signed-in visitor sees it, and the credentials'
      : 'check the credentials, and that the session cookie reaches the page (its path and domain)',
  );
}

export function createLoginManager(options: LoginManagerOptions): LoginManager {
  const now = options.now ?? Date.now;
  const held = new Map<string, Held>();
  const pending = new Map<string, Promise<Obtained>>();
  const failures = new Map<string, Failure>();

  function remembered(endpoint: string, key: string): PagejsonError | undefined {
    const failure = failures.get(endpoint);
    if (!failure || failure.key !== key || failure.until <= now()) return undefined;
    const at = new Date(failure.until).toISOString().slice(11, 19);
    return new PagejsonError('LOGIN_FAILED', `${failure.error.message} (not tried again before ${at} UTC)`, {
      context: { ...failure.error.context, retryAt: new Date(failure.until).toISOString() },
      hint: `${failure.error.hint ?? 'fix the login'}; pagejson signs in again after ${at} UTC, or at once after the config changes`,
    });
  }

  function remember(endpoint: string, key: string, error: unknown): void {
    if (!isPagejsonError(error) || error.code !== 'LOGIN_FAILED') return;
    const previous = failures.get(endpoint);
    const strikes = previous && previous.key === key ? previous.strikes + 1 : 1;
    failures.set(endpoint, {
      key,
      error,
      strikes,
      until: now() + Math.min(FIRST_FAILURE_WAIT_MS * 2 ** (strikes - 1), MAX_FAILURE_WAIT_MS),
    });
  }

  async function establish(request: FetchRequest & { login: FetchLogin }, signal: AbortSignal): Promise<LoginSession> {
    const { settings } = request.login;
    const url = resolveSecrets(settings.url, options.env, 'login.url');
    if (settings.steps) {
      if (!options.browserLogin)
        throw loginFailed('login.steps need scraper 3 (the browser)', 'set "scraper": 3, or sign in with login.form');
      const storage = await options.browserLogin({
        url,
        steps: resolveSteps(settings.steps, options.env, 'login.steps'),
        signal,
        deadlineAt: Date.now() + options.timeoutMs,
        endpoint: request.login.endpoint,
        proxy: request.access?.proxy,
      });
      return { id: newSessionId(), jar: await jarOfBrowserCookies(storage.cookies), origins: storage.origins };
    }
    const fields = resolveSecretRecord(settings.form ?? {}, options.env, 'login.form');
    const jar = new CookieJar();
    const transport = await options.transport(new URL(url), request);
    await formLogin({
      url,
      fields,
      jar,
      signal,
      ...transport,
      allowPrivateNetworks: options.allowPrivateNetworks,
      maxBytes: options.maxBytes,
    });
    return { id: newSessionId(), jar, origins: [] };
  }

  async function adoptStored(endpoint: string, key: string, unlike: string | undefined): Promise<Held | undefined> {
    const stored = await options.store.read(endpoint);
    if (!stored || stored.settingsKey !== key || stored.id === unlike) return undefined;
    const session = await sessionOf(stored);
    return session ? { key, session, createdAt: stored.createdAt, written: await jarText(session.jar) } : undefined;
  }

  /**
   * The endpoint's session: kept (unless fresh or ended), else made under the endpoint's login lock. `signIn`:
   * a session taken from the store was turned away as well, so only a new one made while this call waited for
   * the lock is taken, else it signs in.
   */
  async function obtain(
    request: FetchRequest & { login: FetchLogin },
    key: string,
    ended: string | undefined,
    signIn: boolean,
  ): Promise<Obtained> {
    const { endpoint, fresh } = request.login;
    if (!fresh && !signIn) {
      const kept = await adoptStored(endpoint, key, ended);
      if (kept) return { held: kept, fresh: false };
    }
    const { signal, dispose } = startDeadline(options.timeoutMs, request.signal);
    try {
      return await options.store.exclusive(
        endpoint,
        async () => {
          // Another process (or caller) may have signed in while this one waited for the lock.
          const made = fresh ? undefined : await adoptStored(endpoint, key, ended);
          if (made) return { held: made, fresh: false };
          const session = await establish(request, signal);
          const createdAt = new Date(now()).toISOString();
          await options.store.write(await storedOf(session, { endpoint, settingsKey: key, createdAt }));
          failures.delete(endpoint);
          return { held: { key, session, createdAt, written: await jarText(session.jar) }, fresh: true };
        },
        signal,
      );
    } catch (error) {
      remember(endpoint, key, error);
      throw error;
    } finally {
      dispose();
    }
  }

  /** One login at a time per endpoint in this process: callers share the one under way. */
  function session(request: FetchRequest & { login: FetchLogin }, ended?: string, signIn = false): Promise<Obtained> {
    const { endpoint, settings, fresh } = request.login;
    const key = loginKey(settings);
    const failure = fresh ? undefined : remembered(endpoint, key);
    if (failure) return Promise.reject(failure);
    const known = held.get(endpoint);
    if (!fresh && !ended && known && known.key === key) return Promise.resolve({ held: known, fresh: false });
    const under = pending.get(endpoint);
    if (under && !fresh) return under;
    const making = obtain(request, key, ended, signIn).then((made) => {
      held.set(endpoint, made.held);
      return made;
    });
    pending.set(endpoint, making);
    void making
      .finally(() => {
        if (pending.get(endpoint) === making) pending.delete(endpoint);
      })
      .catch(() => undefined);
    return making;
  }

  /** A fetch with the session: the page, or why the site ended the session. */
  async function attempt(
    request: FetchRequest & { login: FetchLogin },
    current: Held,
    fetchOnce: (request: FetchRequest) => Promise<FetchResult>,
  ): Promise<{ page: FetchResult } | { ended: string }> {
    let page: FetchResult;
    try {
      page = await fetchOnce({ ...request, loginSession: current.session });
    } catch (error) {
      const ended = statusEnded(error);
      if (ended) return { ended };
      throw error;
    }
    const loginUrl = resolveSecrets(request.login.settings.url, options.env, 'login.url');
    const ended = await endedBy(page, request.login, loginUrl, options.probe, request.signal);
    return ended ? { ended } : { page };
  }

  /** A site that renews its cookie as it goes: the jar as the fetch left it is written back. */
  async function keep(endpoint: string, current: Held): Promise<void> {
    const text = await jarText(current.session.jar);
    if (text === current.written) return;
    current.written = text;
    await options.store
      .write(await storedOf(current.session, { endpoint, settingsKey: current.key, createdAt: current.createdAt }))
      .catch(() => undefined);
  }

  async function fetch(
    request: FetchRequest & { login: FetchLogin },
    fetchOnce: (request: FetchRequest) => Promise<FetchResult>,
  ): Promise<FetchResult> {
    const { endpoint } = request.login;
    let current = await session(request);
    for (let round = 0; ; round += 1) {
      const outcome = await attempt(request, current.held, fetchOnce);
      if ('page' in outcome) {
        await keep(endpoint, current.held);
        return outcome.page;
      }
      held.delete(endpoint);
      // Signed in just now and still turned away: the login did not work. Never a second sign-in.
      if (current.fresh) {
        const error = turnedAway(request.login, outcome.ended);
        remember(endpoint, loginKey(request.login.settings), error);
        throw error;
      }
      // A kept session, then one another process stored (as old, maybe), then a sign-in of its own.
      if (round >= 2) throw turnedAway(request.login, outcome.ended);
      current = await session(request, current.held.session.id, round === 1);
    }
  }

  return {
    fetch,
    close: () => options.store.close(),
  };
}
