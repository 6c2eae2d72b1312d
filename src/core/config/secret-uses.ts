import type { Action } from './action-text.js';
import type { LoginSettings } from './login.js';
import type { ProxySettings } from './proxy.js';
import type { RequestSettings } from './request.js';
import { secretNames, type SecretUse } from './secrets.js';

/**
 * Every text of an endpoint that `${NAME}` may stand in (its `request`, `proxy` and `login`), with where it
 * stands: what a fetch checks against the operator's allow-list before it sends anything, and what
 * `validate` lists as the variables a config reads (issue 45, docs/access.md).
 */

export interface SecretParts {
  request?: RequestSettings | undefined;
  proxy?: ProxySettings | undefined;
  login?: LoginSettings | undefined;
}

function stepUses(steps: readonly Action[], at: string, uses: SecretUse[]): void {
  steps.forEach((step, index) => {
    const where = `${at}[${index}]`;
    if (step.text !== undefined) uses.push({ where: `${where}.text`, text: step.text });
    if (step.value !== undefined) uses.push({ where: `${where}.value`, text: step.value });
    if (step.then) stepUses(step.then, `${where}.then`, uses);
  });
}

export function secretUses(parts: SecretParts): SecretUse[] {
  const uses: SecretUse[] = [];
  for (const [name, text] of Object.entries(parts.request?.headers ?? {})) uses.push({ where: `request.headers.${name}`, text });
  for (const [name, text] of Object.entries(parts.request?.cookies ?? {})) uses.push({ where: `request.cookies.${name}`, text });
  if (parts.proxy) parts.proxy.urls.forEach((text, index) => uses.push({ where: `proxy.urls[${index}]`, text }));
  if (parts.login) {
    uses.push({ where: 'login.url', text: parts.login.url });
    for (const [name, text] of Object.entries(parts.login.form ?? {})) uses.push({ where: `login.form.${name}`, text });
    if (parts.login.steps) stepUses(parts.login.steps, 'login.steps', uses);
  }
  return uses;
}

/** The environment variables a config reads, in order of first use (`validate` lists them). */
export function configSecretNames(parts: SecretParts): string[] {
  const names: string[] = [];
  for (const use of secretUses(parts)) for (const name of secretNames(use.text)) if (!names.includes(name)) names.push(name);
  return names;
}
