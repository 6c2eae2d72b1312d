import type { CookieJar } from 'tough-cookie';
import type { LoginSettings } from '../../config/index.js';
import type { FetchResult } from '../scrapers/types.js';

/**
 * A config's login as a fetch carries it (docs/access.md, "Logins"): the endpoint whose session it is and the
 * settings as written (templates: `${NAME}` is resolved only where the login runs, never stored).
 */
export interface FetchLogin {
  /** The endpoint (apiId): sessions are kept per endpoint. */
  endpoint: string;
  settings: LoginSettings;
  /** Sign in afresh even when a session is kept (the dashboard's "test login"). */
  fresh?: boolean;
}

/** Whether a page shows the `loggedIn` selector. Given by the caller that parses pages (the extraction pool). */
export type LoggedInProbe = (page: FetchResult, selector: string, signal: AbortSignal | undefined) => Promise<boolean>;

/** A browser's local storage of one origin, as Playwright's storage state holds it. */
export interface OriginStorage {
  origin: string;
  localStorage: Array<{ name: string; value: string }>;
}

/** What a login yields, as it is kept (a private file, or Redis): never the credentials, only the session. */
export interface StoredSession {
  version: 1;
  /** Random: a renewal replaces the session it saw ended, never a newer one another process made. */
  id: string;
  endpoint: string;
  /** Digest of the login settings as written: a changed login does not reuse the old session. */
  settingsKey: string;
  createdAt: string;
  /** The cookie jar as tough-cookie serializes it. */
  jar: unknown;
  /** Scraper 3 steps: the browser's local storage per origin. */
  origins?: OriginStorage[];
}

/** A session as a fetch uses it: the jar scrapers 1 and 2 send (and update), the storage scraper 3 starts with. */
export interface LoginSession {
  readonly id: string;
  readonly jar: CookieJar;
  readonly origins: OriginStorage[];
}
