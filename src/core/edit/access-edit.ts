import {
  displayHeaderValue,
  displayCookieValue,
  displayProxy,
  HEADER_NAME_PATTERN,
  isTemplateOnly,
  ProxySchema,
  RequestSchema,
  type ApiConfig,
  type ProxySettings,
  type RequestSettings,
} from '../config/index.js';
import { PagejsonError } from '../shared/index.js';

/**
 * `pagejson edit <apiId> --set …` for a config's `request` and `proxy` (docs/access.md), and what such an
 * edit changed, in words. Values are templates (`Bearer ${API_TOKEN}`): an edit never needs a secret, and
 * the change is described with credentials masked (config/access-display.ts).
 *
 *   --set request.headers.Authorization='Bearer ${API_TOKEN}'   (an empty value or off removes it)
 *   --set request.cookies.session='${SITE_SESSION}'
 *   --set request.sendToRedirects=true
 *   --set request=off                                         (removes the block)
 *   --set proxy=http://${PROXY_USER}:${PROXY_PASS}@proxy:3128,http://proxy2:3128
 *   --set proxy.rotate=sticky     --set proxy=false (direct)  --set proxy=default (pagejson.json's)
 */
const OFF = ['', 'null', 'off', 'none'];

function usage(message: string, hint: string): PagejsonError {
  return new PagejsonError('USAGE', message, { hint });
}

function checkedRequest(config: ApiConfig, request: RequestSettings): ApiConfig {
  const { request: _old, ...rest } = config;
  const empty =
    Object.keys(request.headers ?? {}).length === 0 &&
    Object.keys(request.cookies ?? {}).length === 0 &&
    request.sendToRedirects === undefined;
  if (empty) return rest;
  const checked = RequestSchema.safeParse(request);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw usage(
      `request.${issue.path.map(String).join('.')}: ${issue.message}`,
      'see docs/access.md; write secrets as ${NAME} and set NAME in the environment',
    );
  }
  return { ...rest, request: checked.data };
}

function setEntry(kind: 'headers' | 'cookies', name: string) {
  return (config: ApiConfig, value: string): ApiConfig => {
    if (!HEADER_NAME_PATTERN.test(name))
      throw usage(`"${name.slice(0, 100)}" cannot be a ${kind === 'headers' ? 'header' : 'cookie'} name`, 'use letters, digits and -');
    const entries: Record<string, string> = { ...(config.request?.[kind] ?? {}) };
    // Header names are case-insensitive: setting `authorization` replaces `Authorization`.
    for (const key of Object.keys(entries))
      if (key === name || (kind === 'headers' && key.toLowerCase() === name.toLowerCase())) delete entries[key];
    if (!OFF.includes(value.trim().toLowerCase())) entries[name] = value;
    const request: RequestSettings = { ...config.request, [kind]: entries };
    if (Object.keys(entries).length === 0) delete request[kind];
    return checkedRequest(config, request);
  };
}

function setProxy(config: ApiConfig, value: string): ApiConfig {
  const { proxy: _old, ...rest } = config;
  const text = value.trim();
  if (text === 'default' || text === '') return rest;
  if (['false', 'off', 'none', 'direct'].includes(text.toLowerCase())) return { ...rest, proxy: false };
  let candidate: unknown;
  if (text.startsWith('{')) {
    try {
      candidate = JSON.parse(text);
    } catch {
      throw usage(
        `proxy must be a URL list or JSON, got ${text.slice(0, 80)}`,
        'write --set proxy=http://proxy.example:3128 or --set \'proxy={"urls":["http://p1:3128","http://p2:3128"],"rotate":"sticky"}\'',
      );
    }
  } else {
    candidate = {
      urls: text
        .split(',')
        .map((url) => url.trim())
        .filter(Boolean),
      rotate: config.proxy ? config.proxy.rotate : 'round-robin',
    };
  }
  return { ...rest, proxy: parsedProxy(candidate) };
}

function parsedProxy(candidate: unknown): ProxySettings {
  const checked = ProxySchema.safeParse(candidate);
  if (checked.success) return checked.data;
  const issue = checked.error.issues.find((found) => found.code === 'custom') ?? checked.error.issues[0]!;
  throw usage(
    `proxy: ${issue.message}`,
    'write http://[user:password@]host:port, credentials as ${NAME}: http://${PROXY_USER}:${PROXY_PASS}@proxy.example:3128',
  );
}

function setRotate(config: ApiConfig, value: string): ApiConfig {
  if (!config.proxy)
    throw usage(
      'set the proxy URLs before their rotation',
      'write --set proxy=http://proxy.example:3128 first (in the same command is fine)',
    );
  return { ...config, proxy: parsedProxy({ ...config.proxy, rotate: value.trim() }) };
}

/** Exact keys, spread into the edit's top-level setters. */
export const ACCESS_SETTERS: Record<string, (config: ApiConfig, value: string) => ApiConfig> = {
  request: (config, value) => {
    if (OFF.includes(value.trim().toLowerCase())) return checkedRequest(config, {});
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      throw usage(
        `request must be JSON, got ${value.slice(0, 80)}`,
        'write --set \'request={"headers":{"Authorization":"Bearer ${API_TOKEN}"}}\' or --set request.headers.NAME=VALUE',
      );
    }
    return checkedRequest(config, parsed as RequestSettings);
  },
  'request.sendToRedirects': (config, value) => {
    const text = value.trim().toLowerCase();
    if (text !== 'true' && text !== 'false')
      throw usage(`request.sendToRedirects must be true or false, not "${value}"`, 'write --set request.sendToRedirects=true');
    const { sendToRedirects: _old, ...request } = config.request ?? {};
    return checkedRequest(config, text === 'true' ? { ...request, sendToRedirects: true } : request);
  },
  proxy: setProxy,
  'proxy.urls': setProxy,
  'proxy.rotate': setRotate,
};

/** `request.headers.<Name>` and `request.cookies.<name>`: keys with a name in them. */
export function accessSetter(key: string): ((config: ApiConfig, value: string) => ApiConfig) | undefined {
  const match = /^request\.(headers|cookies)\.(.+)$/.exec(key);
  return match ? setEntry(match[1] as 'headers' | 'cookies', match[2]!) : undefined;
}

function shownEntries(request: RequestSettings | undefined, kind: 'headers' | 'cookies'): Map<string, string> {
  const show =
    kind === 'headers'
      ? (name: string, value: string) => displayHeaderValue(name, value)
      : (_name: string, value: string) => displayCookieValue(value);
  return new Map(Object.entries(request?.[kind] ?? {}).map(([name, value]) => [name, show(name, value)]));
}

/** What an edit changed in `request` and `proxy`, in words, with credentials masked. */
export function accessChanges(before: ApiConfig, after: ApiConfig): Array<{ kind: 'setting'; subject: string; text: string }> {
  const changes: Array<{ kind: 'setting'; subject: string; text: string }> = [];
  for (const kind of ['headers', 'cookies'] as const) {
    const old = shownEntries(before.request, kind);
    const now = shownEntries(after.request, kind);
    const noun = kind === 'headers' ? 'header' : 'cookie';
    for (const [name, value] of now) {
      if (!old.has(name))
        changes.push({ kind: 'setting', subject: `request.${kind}.${name}`, text: `request ${noun} ${name} added ("${value}")` });
      else if (JSON.stringify(before.request?.[kind]?.[name]) !== JSON.stringify(after.request?.[kind]?.[name]))
        changes.push({ kind: 'setting', subject: `request.${kind}.${name}`, text: `request ${noun} ${name} changed to "${value}"` });
    }
    for (const name of old.keys())
      if (!now.has(name)) changes.push({ kind: 'setting', subject: `request.${kind}.${name}`, text: `request ${noun} ${name} removed` });
  }
  if (Boolean(before.request?.sendToRedirects) !== Boolean(after.request?.sendToRedirects)) {
    changes.push({
      kind: 'setting',
      subject: 'request.sendToRedirects',
      text: after.request?.sendToRedirects
        ? 'request headers and cookies now also go to other origins after a redirect'
        : "request headers and cookies now go to the config's origin only",
    });
  }
  if (JSON.stringify(before.proxy) !== JSON.stringify(after.proxy)) {
    const text =
      after.proxy === undefined
        ? "proxy removed (pagejson.json's, or the environment's)"
        : after.proxy === false
          ? 'proxy set to none (direct)'
          : `proxy set to ${JSON.stringify(displayProxy(after.proxy))}`;
    changes.push({ kind: 'setting', subject: 'proxy', text });
  }
  return changes;
}

const CREDENTIAL_HEADER = /auth|token|key|secret|session|cookie|signature|password|credential/i;

function literalIn(kind: 'headers' | 'cookies', name: string, value: string): boolean {
  if (OFF.includes(value.trim().toLowerCase())) return false;
  return (kind === 'cookies' || CREDENTIAL_HEADER.test(name)) && !isTemplateOnly(value, { scheme: kind === 'headers' });
}

function literalProxyPassword(url: string): boolean {
  const password = /^[a-z][a-z0-9+.-]*:\/\/[^/@:]*:([^@/]*)@/i.exec(url.trim())?.[1];
  return password !== undefined && password !== '' && !isTemplateOnly(password);
}

function proxyUrlsOf(value: string): string[] {
  const text = value.trim();
  if (!text.startsWith('{')) return text.split(',');
  try {
    const parsed = JSON.parse(text) as { urls?: unknown };
    return Array.isArray(parsed.urls) ? parsed.urls.filter((url): url is string => typeof url === 'string') : [];
  } catch {
    return [];
  }
}

function literalCredential(key: string, value: string): boolean {
  const entry = /^request\.(headers|cookies)\.(.+)$/.exec(key);
  if (entry) return literalIn(entry[1] as 'headers' | 'cookies', entry[2]!, value);
  if (key === 'request' && value.trim().startsWith('{')) {
    try {
      const parsed = JSON.parse(value) as RequestSettings;
      return (['headers', 'cookies'] as const).some((kind) =>
        Object.entries(parsed[kind] ?? {}).some(([name, text]) => typeof text === 'string' && literalIn(kind, name, text)),
      );
    } catch {
      return false;
    }
  }
  if (key === 'proxy' || key === 'proxy.urls') return proxyUrlsOf(value).some(literalProxyPassword);
  return false;
}

/**
 * The dashboard takes credentials as `${NAME}` templates only (docs/security.md): an operation that would write
 * a token, a cookie value or a proxy password into a config file is refused, naming what to write instead.
 */
export function refuseLiteralCredentials(operations: ReadonlyArray<{ kind: string; key?: string; value?: string }>): void {
  for (const operation of operations) {
    if (operation.kind !== 'set' || operation.key === undefined || operation.value === undefined) continue;
    if (literalCredential(operation.key, operation.value)) {
      throw usage(
        `${operation.key}: write the credential as \${NAME}, not as its value`,
        "set NAME in the daemon's environment and write ${NAME} here: the dashboard writes no secret into a config file (docs/access.md)",
      );
    }
  }
}
