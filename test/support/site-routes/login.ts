import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FixtureSite, RouteHandler } from '../site.js';

/**
 * A site behind a login form (docs/access.md, "Logins"), as real ones are built:
 *
 * - `GET /login/form` sets a pre-session cookie and shows the login form with a hidden CSRF token bound to it
 *   (and a search form beside it, which a login must not post);
 * - `POST /login/submit` checks the token against the pre-session cookie (403 without it), the user `ada` and
 *   her password (`site.state.get('loginPassword')`, `correct horse` by default): right, it counts a login,
 *   sets the `member` session cookie and redirects (303) to `/login/welcome`; wrong, it shows the form again
 *   with an error (200), as most sites do;
 * - the members' pages show their data to a member and otherwise redirect to the form (`members.html`), answer
 *   401 (`members-401.html`) or show a "please sign in" page with 200 (`members-soft.html`, only `loggedIn`
 *   tells it apart);
 * - `GET /login/expire` ends every session, as a site does when they time out;
 * - `GET /login/form-elsewhere?to=<origin>` is a login page whose form posts to another site.
 *
 * `loginStats(site)` counts logins and refusals, so tests can prove how often pagejson signed in.
 */
interface LoginState {
  csrf: Map<string, string>;
  members: Set<string>;
  logins: number;
  refused: number;
}

const states = new WeakMap<FixtureSite, LoginState>();

export function loginStats(site: FixtureSite): LoginState {
  let state = states.get(site);
  if (!state) {
    state = { csrf: new Map(), members: new Set(), logins: 0, refused: 0 };
    states.set(site, state);
  }
  return state;
}

export const LOGIN_USER = 'ada';
export const LOGIN_PASSWORD = 'correct horse';

const HTML = 'text/html; charset=utf-8';

function cookie(req: IncomingMessage, name: string): string | undefined {
  for (const part of req.headers.cookie?.split(';') ?? []) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

function isMember(req: IncomingMessage, site: FixtureSite): boolean {
  const token = cookie(req, 'member');
  return token !== undefined && loginStats(site).members.has(token);
}

async function formBody(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function loginForm(token: string, error?: string): string {
  return `<!doctype html><html><head><title>Sign in</title></head><body>
<header><form class="search" action="/search" method="get"><input name="q" placeholder="Search"><button>Go</button></form></header>
<main><h1>Sign in</h1>${error ? `<p class="error">${error}</p>` : ''}
<form class="login" method="post" action="/login/submit">
  <input type="hidden" name="csrf" value="${token}">
  <label>User <input name="username" autocomplete="username"></label>
  <label>Password <input type="password" name="password"></label>
  <label><input type="checkbox" name="remember" value="yes" checked> Remember me</label>
  <button type="submit" name="go" value="1">Sign in</button>
</form></main></body></html>`;
}

const MEMBERS = `<!doctype html><html><head><title>Members</title></head><body>
<nav><a class="logout" href="/login/logout">Sign out</a></nav>
<h1>Members' prices</h1>
<table class="prices">
  <tr class="row"><td class="name">Gold</td><td class="price">1900</td></tr>
  <tr class="row"><td class="name">Silver</td><td class="price">24</td></tr>
</table></body></html>`;

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string | string[]> = {}): void {
  res.writeHead(status, { 'content-type': HTML, ...headers });
  res.end(body);
}

function showForm(req: IncomingMessage, res: ServerResponse, site: FixtureSite, status = 200, error?: string): void {
  const pre = cookie(req, 'pre') ?? randomBytes(8).toString('hex');
  const token = randomBytes(12).toString('hex');
  loginStats(site).csrf.set(pre, token);
  send(res, status, loginForm(token, error), { 'set-cookie': `pre=${pre}; Path=/login; HttpOnly; SameSite=Lax` });
}

export const loginRoutes: Record<string, RouteHandler> = {
  '/login/form': (req, res, site) => showForm(req, res, site),
  '/login/submit': async (req, res, site) => {
    const state = loginStats(site);
    const body = await formBody(req);
    const pre = cookie(req, 'pre');
    if (req.method !== 'POST' || !pre || !body.get('csrf') || state.csrf.get(pre) !== body.get('csrf')) {
      state.refused += 1;
      return send(res, 403, '<!doctype html><title>Forbidden</title><h1>CSRF token missing or wrong</h1>');
    }
    state.csrf.delete(pre);
    const password = site.state.get('loginPassword') ?? LOGIN_PASSWORD;
    if (body.get('username') !== LOGIN_USER || body.get('password') !== password || body.get('go') !== '1') {
      state.refused += 1;
      return showForm(req, res, site, 200, 'Wrong user name or password.');
    }
    state.logins += 1;
    const member = randomBytes(12).toString('hex');
    state.members.add(member);
    res.writeHead(303, { location: '/login/welcome', 'set-cookie': `member=${member}; Path=/; HttpOnly; SameSite=Lax` });
    res.end();
  },
  // A login page whose form posts elsewhere (`?to=<origin>`): a page taken over, or an open redirect's landing.
  '/login/form-elsewhere': (req, res) => {
    const to = new URL(req.url ?? '/', 'http://fixture').searchParams.get('to') ?? '';
    send(res, 200, loginForm('token').replace('action="/login/submit"', `action="${to}/login/submit"`));
  },
  // A login URL that redirects to another site's login page (`?to=<origin>`): that page's form must not be filled (issue 45).
  '/login/redirect-away': (req, res) => {
    const to = new URL(req.url ?? '/', 'http://fixture').searchParams.get('to') ?? '';
    res.writeHead(302, { location: `${to}/login/form` });
    res.end();
  },
  // A login form sent with GET (the password in the address), whose answer redirects to `?away=<origin>`.
  '/login/form-get': (req, res) => {
    const away = new URL(req.url ?? '/', 'http://fixture').searchParams.get('away') ?? '';
    const form = loginForm('token')
      .replace('method="post" action="/login/submit"', 'method="get" action="/login/submit-get"')
      .replace('<input type="hidden" name="csrf" value="token">', `<input type="hidden" name="away" value="${away}">`);
    send(res, 200, form);
  },
  '/login/submit-get': (req, res) => {
    const away = new URL(req.url ?? '/', 'http://fixture').searchParams.get('away') ?? '';
    res.writeHead(302, { location: `${away}/login/landing` });
    res.end();
  },
  // Where a redirect lands: it keeps the Referer it was sent (`site.state` 'login.referer').
  '/login/landing': (req, res, site) => {
    site.state.set('login.referer', req.headers.referer ?? '');
    send(res, 200, '<!doctype html><title>Landed</title><h1>Landed</h1>');
  },
  '/login/welcome': (req, res, site) =>
    send(
      res,
      isMember(req, site) ? 200 : 401,
      '<!doctype html><title>Welcome</title><h1>Welcome back</h1><script>localStorage.setItem("greeting", "hello member")</script>',
    ),
  '/login/members.html': (req, res, site) => {
    if (isMember(req, site)) return send(res, 200, MEMBERS);
    res.writeHead(302, { location: '/login/form?next=/login/members.html' });
    res.end();
  },
  '/login/members-401.html': (req, res, site) =>
    isMember(req, site) ? send(res, 200, MEMBERS) : send(res, 401, '<!doctype html><title>Unauthorized</title><h1>Sign in first</h1>'),
  '/login/members-soft.html': (req, res, site) =>
    isMember(req, site)
      ? send(res, 200, MEMBERS)
      : send(
          res,
          200,
          '<!doctype html><title>Members</title><h1>Members\' prices</h1><p>Please <a href="/login/form">sign in</a> to see the prices.</p><table class="prices"></table>',
        ),
  '/login/expire': (_req, res, site) => {
    loginStats(site).members.clear();
    res.writeHead(204).end();
  },
};
