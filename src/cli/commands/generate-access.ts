import { formatZodIssues } from '../../core/config/problems.js';
import { ProxySchema, type ProxySettings } from '../../core/config/proxy.js';
import { RequestSchema, type RequestSettings } from '../../core/config/request.js';
import { PagejsonError } from '../../core/shared/errors.js';

/**
 * `generate --header 'Name: value'` and `--proxy URL` (docs/access.md): for pages that need them to be
 * fetched at all. They are checked like the config's `request` and `proxy` (a usage error says what is
 * wrong), sent with the generation's fetch, and written into the config as typed: `${NAME}` stays a
 * template, so the secret itself is never written (only the environment holds it).
 */
export interface AccessFlags {
  header?: string[];
  proxy?: string[];
}

function headersOf(lines: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trim() : '';
    if (!name) {
      throw new PagejsonError('USAGE', `--header takes "Name: value", not "${line.length > 60 ? `${line.slice(0, 60)}…` : line}"`, {
        hint: "e.g. --header 'Authorization: Bearer ${API_TOKEN}' (single quotes keep ${API_TOKEN} from the shell; pagejson reads it from the environment)",
      });
    }
    headers[name] = line.slice(colon + 1).trim();
  }
  return headers;
}

function refused(flag: string, issues: Parameters<typeof formatZodIssues>[0]): PagejsonError {
  const [first] = formatZodIssues(issues);
  return new PagejsonError('USAGE', `${flag}: ${first?.message ?? 'not valid'}`, { hint: first?.hint ?? 'see docs/access.md' });
}

/** The `access` of a generation from its flags, or nothing when none is given. */
export function accessFromFlags(flags: AccessFlags): { access?: { request?: RequestSettings; proxy?: ProxySettings } } {
  const headers = flags.header ?? [];
  const proxies = flags.proxy ?? [];
  if (headers.length === 0 && proxies.length === 0) return {};
  const access: { request?: RequestSettings; proxy?: ProxySettings } = {};
  if (headers.length > 0) {
    const parsed = RequestSchema.safeParse({ headers: headersOf(headers) });
    if (!parsed.success) throw refused('--header', parsed.error.issues);
    access.request = parsed.data;
  }
  if (proxies.length > 0) {
    const parsed = ProxySchema.safeParse({ urls: proxies });
    if (!parsed.success) throw refused('--proxy', parsed.error.issues);
    access.proxy = parsed.data;
  }
  return { access };
}
