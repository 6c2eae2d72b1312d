/**
 * Whether a credential's value is a template and nothing else (issue 45): only then is it shown as written and
 * taken by the dashboard. `hunter2${X}` or `Bearer hunter2 ${T}` hold a literal secret beside the template, so
 * the whole value is treated as a secret wherever it is shown. A header may keep its scheme word before the
 * template (`Bearer ${API_TOKEN}`); a form field, a cookie or a proxy password is exactly one `${NAME}`.
 */
const EXACT = /^\$\{[A-Z_][A-Z0-9_]*\}$/;
const WITH_SCHEME = /^(?:[A-Za-z][A-Za-z0-9-]* )?\$\{[A-Z_][A-Z0-9_]*\}$/;

export function isTemplateOnly(value: string, options: { scheme?: boolean } = {}): boolean {
  return (options.scheme ? WITH_SCHEME : EXACT).test(value.trim());
}

/** Form field names (and step selectors) whose value is a credential: `pwd` and `passwd` included. */
export const CREDENTIAL_FIELD = /pass|pwd|secret|token|otp|pin|credential|key|code/i;
