import { useState } from 'preact/hooks';
import { api } from '../app/api';
import type { Config } from '../app/types';
import { Busy, ErrorBox, Section } from './ui';

/**
 * The endpoint's `login` (docs/access.md, "Logins"), as the daemon serves it: templates (`${SITE_PASSWORD}`) as
 * written, a credential written literally into the file masked. "Test login" signs in afresh with the saved
 * revision (the daemon's environment gives the `${NAME}`s), fetches the page with the new session and says how
 * it went. Edits go through `pagejson edit --set login…` (a credential is a `${NAME}` template only).
 */
interface TestAnswer {
  ok: boolean;
  finalUrl?: string;
  status?: number;
  error?: { code: string; message: string; hint?: string };
}

export function LoginPanel({ apiId, config }: { apiId: string; config: Config }) {
  const [answer, setAnswer] = useState<TestAnswer | undefined>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const login = config.login;
  if (!login) return null;
  const test = async () => {
    setBusy(true);
    setError(undefined);
    setAnswer(undefined);
    try {
      setAnswer(await api<TestAnswer>('POST', `/endpoints/${apiId}/test-login`, {}));
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Section title="Login" id="login">
      <p>
        {login.form ? 'A form posted over HTTP' : 'Browser steps'} at <code class="url">{login.url}</code>
        {login.loggedIn ? (
          <>
            , signed in while <code>{login.loggedIn}</code> is on the page
          </>
        ) : null}
      </p>
      {login.form ? (
        <table aria-label="Login form fields">
          <tbody>
            {Object.entries(login.form).map(([name, value]) => (
              <tr key={name}>
                <th scope="row">
                  <code>{name}</code>
                </th>
                <td>
                  <code>{value}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p class="muted">{login.steps?.length ?? 0} steps</p>
      )}
      <button type="button" class="test-login" disabled={busy} onClick={() => void test()}>
        Test login
      </button>
      <span class="muted small"> Signs in afresh and fetches the page with the new session.</span>
      {busy ? <Busy label={`Signing in at ${login.url}`} /> : null}
      <ErrorBox error={error} />
      {answer?.ok ? (
        <p class="success" role="status">
          Signed in: the page answered {answer.status} at {answer.finalUrl}
        </p>
      ) : null}
      {answer && !answer.ok && answer.error ? (
        <div class="error" role="alert">
          <strong>{answer.error.message}</strong>
          {answer.error.hint ? <div class="hint">{answer.error.hint}</div> : null}
        </div>
      ) : null}
    </Section>
  );
}
