import { z } from 'zod';
import { PagejsonError } from '../shared/index.js';
import { ALLOWED_SECRETS_VARIABLE, SECRET_NAME_PATTERN, allowedSecretNames } from './secret-allow-list.js';

export { ALLOWED_SECRETS_VARIABLE, SECRET_NAME_PATTERN, allowedSecretNames, withAllowedSecrets } from './secret-allow-list.js';

/**
 * Secrets from the environment (docs/access.md, "Secrets"): any text of a config's `request`, `login` and
 * `proxy` settings (and `fetch.proxy` of pagejson.json) may hold `${NAME}`, read from the environment of the
 * process that fetches. Files keep the template; only the fetch resolves it, so `show`, the dashboard, logs,
 * errors, snapshots and the OpenAPI document can only ever print `${NAME}` (docs/security.md).
 *
 * `validate` checks that names are well formed (`secretProblems`) without needing them set: CI has no
 * secrets. A fetch with a name unset fails with an error naming the variable, never a value.
 *
 * Which variables may be read is decided by whoever runs pagejson, never by the config (a pull request can
 * change a config): only the names listed in PAGEJSON_SECRETS (or given with `--allow-secret NAME`, which the
 * CLI adds to it) are read; any other name fails before anything is sent (issue 45, docs/security.md).
 */

const MAX_SECRET_NAME_LENGTH = 128;
/** Every `${…}` in a text; an unclosed `${` is caught by the second branch. */
const PLACEHOLDER = /\$\{([^}]*)\}|\$\{/g;
/** A resolved value with a control character would split a header or a URL: refused, naming the variable only. */
function hasControlCharacter(value: string): boolean {
  for (let index = 0; index < value.length; index += 1) {
    const code = value.charCodeAt(index);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

export const SECRET_HINT =
  'write ${NAME} with capitals, digits and _ (e.g. ${API_TOKEN}), and set NAME in the environment of the process that fetches';

function isWellFormed(name: string): boolean {
  return name.length <= MAX_SECRET_NAME_LENGTH && SECRET_NAME_PATTERN.test(name);
}

/** The variable names a text refers to, in order of first appearance (malformed ones left out). */
export function secretNames(value: string): string[] {
  const names: string[] = [];
  for (const match of value.matchAll(PLACEHOLDER)) {
    const name = match[1];
    if (name !== undefined && isWellFormed(name) && !names.includes(name)) names.push(name);
  }
  return names;
}

/** Whether a text holds any `${…}` at all (a template, to be shown as written and resolved at fetch). */
export function hasSecrets(value: string): boolean {
  return value.includes('${');
}

/** What is wrong with the placeholders of a text, in words (empty when every one is well formed). */
export function secretProblems(value: string): string[] {
  const problems: string[] = [];
  for (const match of value.matchAll(PLACEHOLDER)) {
    const name = match[1];
    if (name === undefined) problems.push('"${" is not closed: write ${NAME}');
    else if (!isWellFormed(name)) {
      const shown = name.length > 40 ? `${name.slice(0, 40)}…` : name;
      problems.push(`"\${${shown}}" is not an environment variable name: use capitals, digits and _, not starting with a digit`);
    }
  }
  return problems;
}

/** A zod string that may hold `${NAME}` placeholders; a malformed one is refused where it stands. */
export function secretTemplate(maxLength: number): z.ZodString {
  return z
    .string()
    .max(maxLength)
    .superRefine((value, context) => {
      for (const message of secretProblems(value)) context.addIssue({ code: 'custom', message });
    });
}

export function secretUnsetError(name: string, where: string | undefined): PagejsonError {
  const place = where ? ` (used in ${where})` : '';
  return new PagejsonError('FETCH_FAILED', `the environment variable ${name} is not set${place}`, {
    context: { variable: name, ...(where ? { where } : {}) },
    hint: `set ${name} in the environment of the process that fetches (the daemon, or the shell running pagejson); the config keeps \${${name}}`,
  });
}

export function secretNotAllowedError(name: string, where: string | undefined): PagejsonError {
  const place = where ? ` (used in ${where})` : '';
  return new PagejsonError(
    'FETCH_FAILED',
    `the environment variable ${name} is not allowed${place}: allow it with ${ALLOWED_SECRETS_VARIABLE}=${name} or --allow-secret ${name}`,
    {
      context: { variable: name, reason: 'secret-not-allowed', ...(where ? { where } : {}) },
      hint: `pagejson reads only the variables whoever runs it allows: if this config may send ${name} to the hosts it names, set ${ALLOWED_SECRETS_VARIABLE}=${name} (comma-separated for several) in the environment, or pass --allow-secret ${name}`,
    },
  );
}

/** A text and where it stands in a config (`request.headers.Authorization`), for checks before a fetch. */
export interface SecretUse {
  where: string;
  text: string;
}

/** Throws for the first `${NAME}` among `uses` the operator has not allowed, before anything is resolved or sent. */
export function assertSecretsAllowed(uses: Iterable<SecretUse>, env: Readonly<Record<string, string | undefined>>): void {
  const allowed = allowedSecretNames(env);
  for (const use of uses) {
    for (const name of secretNames(use.text)) if (!allowed.has(name)) throw secretNotAllowedError(name, use.where);
  }
}

/**
 * The text with every `${NAME}` replaced by the environment's value. An unset or empty variable is an error
 * naming it (and `where`, e.g. `request.headers.authorization`); so is a value holding control characters,
 * which would split a header or a URL, and a name PAGEJSON_SECRETS does not list. No error carries the value.
 */
export function resolveSecrets(value: string, env: Record<string, string | undefined>, where?: string): string {
  if (!hasSecrets(value)) return value;
  const problems = secretProblems(value);
  if (problems.length > 0) {
    throw new PagejsonError('CONFIG_INVALID', `${where ?? 'a setting'}: ${problems[0]}`, {
      context: { ...(where ? { where } : {}) },
      hint: SECRET_HINT,
    });
  }
  const allowed = allowedSecretNames(env);
  return value.replace(PLACEHOLDER, (_whole, name: string) => {
    if (!allowed.has(name)) throw secretNotAllowedError(name, where);
    const resolved = Object.hasOwn(env, name) ? env[name] : undefined;
    if (resolved === undefined || resolved === '') throw secretUnsetError(name, where);
    if (hasControlCharacter(resolved)) {
      throw new PagejsonError('FETCH_FAILED', `the environment variable ${name} holds a control character (a line break?)`, {
        context: { variable: name, ...(where ? { where } : {}) },
        hint: `set ${name} to the value alone, without a trailing newline`,
      });
    }
    return resolved;
  });
}

/** Every value of a record resolved (`where` names each key: `request.headers.authorization`). */
export function resolveSecretRecord(
  record: Readonly<Record<string, string>>,
  env: Record<string, string | undefined>,
  where: string,
): Record<string, string> {
  const resolved: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [key, value] of Object.entries(record)) resolved[key] = resolveSecrets(value, env, `${where}.${key}`);
  return resolved;
}

/** Names of the unset variables among those a set of texts refers to (for `validate --live`, `doctor`-style checks). */
export function unsetSecretNames(values: Iterable<string>, env: Record<string, string | undefined>): string[] {
  const unset = new Set<string>();
  for (const value of values) {
    for (const name of secretNames(value)) if (!env[name]) unset.add(name);
  }
  return [...unset];
}
