/**
 * The dashboard's only way to the daemon: JSON over /ui/api/, with the session's CSRF token on every change.
 * A 401 means the session ended: back to the sign-in page.
 */
export interface ApiProblem {
  code: string;
  message: string;
  hint?: string;
  problems?: Array<{ path: string; message: string; hint?: string }>;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: ApiProblem,
  ) {
    super(problem.message);
  }
}

let csrf = '';

export function setCsrf(token: string): void {
  csrf = token;
}

export async function api<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const response = await fetch(`/ui/api${path}`, {
    method,
    credentials: 'same-origin',
    headers:
      method === 'GET'
        ? { accept: 'application/json' }
        : { accept: 'application/json', 'content-type': 'application/json', 'x-pagejson-csrf': csrf },
    ...(method === 'GET' ? {} : { body: JSON.stringify(body ?? {}) }),
  });
  if (response.status === 401) {
    location.assign('/ui/login?reason=session-ended');
    throw new ApiError(401, { code: 'UNAUTHENTICATED', message: 'not signed in' });
  }
  if (response.status === 204) return undefined as T;
  const json = (await response.json().catch(() => ({}))) as { error?: ApiProblem };
  if (!response.ok) throw new ApiError(response.status, json.error ?? { code: 'HTTP', message: `the daemon answered ${response.status}` });
  return json as T;
}

/** Credits as the CLI prints them (milli-credits in, e.g. "0.4"). */
export function credits(milli: number): string {
  return String(Math.round(milli) / 1000);
}

export function when(iso: string | null | undefined): string {
  if (!iso) return 'never';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}
