import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { Link, Route, Router, Switch, useLocation } from 'wouter-preact';
import { api, setCsrf } from './api';
import { EndpointsPage } from '../pages/endpoints';
import { EndpointPage } from '../pages/endpoint';
import { GeneratePage } from '../pages/generate';
import { JobsPage } from '../pages/jobs';
import { KeysPage } from '../pages/keys';
import { UsagePage } from '../pages/usage';
import { ErrorBox } from '../components/ui';
import './styles.css';

/** The dashboard shell: a skip link, the navigation, and one page per route (client-side, under /ui/). */
export interface Session {
  csrf: string;
  expiresAt: string;
  publicUrl: string;
  creditsEnabled: boolean;
  store: string;
}

const NAV = [
  ['/', 'Endpoints'],
  ['/generate', 'Generate'],
  ['/keys', 'Keys'],
  ['/usage', 'Usage'],
  ['/jobs', 'Jobs'],
] as const;

function Nav() {
  const [location] = useLocation();
  return (
    <nav aria-label="Main">
      <ul>
        {NAV.map(([href, label]) => {
          const current = href === '/' ? location === '/' || location.startsWith('/endpoints') : location.startsWith(href);
          return (
            <li key={href}>
              <Link href={href} aria-current={current ? 'page' : undefined}>
                {label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

function App() {
  const [session, setSession] = useState<Session | undefined>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    api<Session>('GET', '/session').then((answer) => {
      setCsrf(answer.csrf);
      setSession(answer);
    }, setError);
  }, []);
  const logout = async () => {
    await api('POST', '/logout').catch(() => undefined);
    location.assign('/ui/login?reason=signed-out');
  };
  return (
    <Router base="/ui">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">pagejson</span>
        <Nav />
        <button type="button" class="secondary small" onClick={logout}>
          Log out
        </button>
      </header>
      <main id="main">
        <ErrorBox error={error} />
        {session ? (
          <Switch>
            <Route path="/">{() => <EndpointsPage />}</Route>
            <Route path="/endpoints/:apiId">{(params: { apiId: string }) => <EndpointPage apiId={params.apiId} session={session} />}</Route>
            <Route path="/generate">{() => <GeneratePage />}</Route>
            <Route path="/keys">{() => <KeysPage session={session} />}</Route>
            <Route path="/usage">{() => <UsagePage />}</Route>
            <Route path="/jobs">{() => <JobsPage />}</Route>
            <Route>
              {() => (
                <p>
                  There is no such page. <Link href="/">Back to the endpoints</Link>
                </p>
              )}
            </Route>
          </Switch>
        ) : null}
      </main>
    </Router>
  );
}

render(<App />, document.getElementById('app')!);
