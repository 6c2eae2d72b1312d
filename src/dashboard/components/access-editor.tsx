import { useState } from 'preact/hooks';
import type { Config, Operation } from '../app/types';
import { Section } from './ui';

/**
 * A config's `request` headers and cookies and its `proxy` (docs/access.md). Values are shown as the daemon
 * serves them: templates (`Bearer ${API_TOKEN}`) as written, a credential written literally into the file
 * masked. Changes are `pagejson edit --set` operations, tried and saved with the others; a credential is taken
 * as a `${NAME}` template only (the daemon refuses anything else from the dashboard), so no secret ever
 * reaches a config file through here.
 */
const CREDENTIAL = /auth|token|key|secret|session|cookie|signature|password|credential/i;
const TEMPLATE = /\$\{[A-Z_][A-Z0-9_]*\}/;

function literalCredential(kind: 'headers' | 'cookies', name: string, value: string): boolean {
  return value.trim() !== '' && (kind === 'cookies' || CREDENTIAL.test(name)) && !TEMPLATE.test(value);
}

function Entries({
  kind,
  entries,
  disabled,
  onOperation,
}: {
  kind: 'headers' | 'cookies';
  entries: Record<string, string>;
  disabled: boolean;
  onOperation: (...operations: Operation[]) => void;
}) {
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const noun = kind === 'headers' ? 'header' : 'cookie';
  const literal = literalCredential(kind, name, value);
  const rows = Object.entries(entries);
  return (
    <div class={`access-${kind}`}>
      <h3>{kind === 'headers' ? 'Headers' : 'Cookies'}</h3>
      {rows.length === 0 ? (
        <p class="muted">No {kind}.</p>
      ) : (
        <table aria-label={`Request ${kind}`}>
          <tbody>
            {rows.map(([entryName, entryValue]) => (
              <tr key={entryName}>
                <th scope="row">
                  <code>{entryName}</code>
                </th>
                <td>
                  <code>{entryValue}</code>
                </td>
                <td>
                  <button
                    type="button"
                    class="secondary small"
                    disabled={disabled}
                    onClick={() => onOperation({ kind: 'set', key: `request.${kind}.${entryName}`, value: 'off' })}
                  >
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <div class="toolbar">
        <label>
          {noun} name{' '}
          <input
            value={name}
            disabled={disabled}
            placeholder={kind === 'headers' ? 'Authorization' : 'session'}
            onInput={(event) => setName(event.currentTarget.value.trim())}
          />
        </label>
        <label>
          value{' '}
          <input
            value={value}
            disabled={disabled}
            placeholder={kind === 'headers' ? 'Bearer ${API_TOKEN}' : '${SITE_SESSION}'}
            onInput={(event) => setValue(event.currentTarget.value)}
          />
        </label>
        <button
          type="button"
          disabled={disabled || name === '' || value.trim() === '' || literal}
          onClick={() => onOperation({ kind: 'set', key: `request.${kind}.${name}`, value })}
        >
          Set {noun}
        </button>
      </div>
      {literal ? (
        <p class="warning" role="alert">
          Write the secret as <code>{'${NAME}'}</code> and set NAME in the daemon's environment: its value is never written into the config.
        </p>
      ) : null}
    </div>
  );
}

function ProxyEditor({
  config,
  disabled,
  onOperation,
}: {
  config: Config;
  disabled: boolean;
  onOperation: (...operations: Operation[]) => void;
}) {
  const proxy = config.proxy;
  const [urls, setUrls] = useState(proxy ? proxy.urls.join('\n') : '');
  const [rotate, setRotate] = useState(proxy ? proxy.rotate : 'round-robin');
  const list = urls
    .split(/[\n,]/)
    .map((url) => url.trim())
    .filter(Boolean);
  const literal = list.some(
    (url) => /^[a-z]+:\/\/[^/@:]*:([^@/]*)@/i.test(url) && !TEMPLATE.test(/^[a-z]+:\/\/[^/@:]*:([^@/]*)@/i.exec(url)?.[1] ?? ''),
  );
  const current =
    proxy === undefined
      ? "pagejson.json's fetch.proxy, else HTTPS_PROXY/HTTP_PROXY"
      : proxy === false
        ? 'none: direct'
        : `${proxy.urls.join(', ')} (${proxy.rotate})`;
  return (
    <div class="access-proxy">
      <h3>Proxy</h3>
      <p>
        Now: <code>{current}</code>
      </p>
      <label for="proxy-urls">
        Proxy URLs, one per line (<code>{'http://${PROXY_USER}:${PROXY_PASS}@proxy.example:3128'}</code>)
      </label>
      <textarea
        id="proxy-urls"
        rows={3}
        spellcheck={false}
        disabled={disabled}
        value={urls}
        onInput={(event) => setUrls(event.currentTarget.value)}
      />
      <label>
        rotation{' '}
        <select value={rotate} disabled={disabled} onChange={(event) => setRotate(event.currentTarget.value as 'round-robin' | 'sticky')}>
          <option value="round-robin">round-robin: each fetch the next proxy</option>
          <option value="sticky">sticky: one proxy per endpoint until it fails</option>
        </select>
      </label>
      {literal ? (
        <p class="warning" role="alert">
          Write the proxy password as <code>{'${NAME}'}</code>: it is never written into the config.
        </p>
      ) : null}
      <div class="actions">
        <button
          type="button"
          disabled={disabled || list.length === 0 || literal}
          onClick={() => onOperation({ kind: 'set', key: 'proxy', value: JSON.stringify({ urls: list, rotate }) })}
        >
          Use these proxies
        </button>
        <button
          type="button"
          class="secondary"
          disabled={disabled || proxy === false}
          onClick={() => onOperation({ kind: 'set', key: 'proxy', value: 'false' })}
        >
          No proxy (direct)
        </button>
        <button
          type="button"
          class="secondary"
          disabled={disabled || proxy === undefined}
          onClick={() => onOperation({ kind: 'set', key: 'proxy', value: 'default' })}
        >
          Project default
        </button>
      </div>
    </div>
  );
}

export function AccessEditor({
  config,
  disabled,
  onOperation,
}: {
  config: Config;
  disabled: boolean;
  onOperation: (...operations: Operation[]) => void;
}) {
  const request = config.request ?? {};
  return (
    <Section title="Headers, cookies and proxy" id="access">
      <p class="muted small">
        Sent with every fetch of this endpoint, to the origin of its URL. <code>{'${NAME}'}</code> is read from the daemon's environment
        when it fetches; the value itself is never stored, shown or logged.
      </p>
      <Entries kind="headers" entries={request.headers ?? {}} disabled={disabled} onOperation={onOperation} />
      <Entries kind="cookies" entries={request.cookies ?? {}} disabled={disabled} onOperation={onOperation} />
      <label class="inline">
        <input
          type="checkbox"
          checked={request.sendToRedirects === true}
          disabled={disabled}
          onChange={(event) => onOperation({ kind: 'set', key: 'request.sendToRedirects', value: String(event.currentTarget.checked) })}
        />{' '}
        also send them after a redirect to another origin
      </label>
      <ProxyEditor config={config} disabled={disabled} onOperation={onOperation} />
    </Section>
  );
}
