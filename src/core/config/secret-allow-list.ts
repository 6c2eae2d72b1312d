/**
 * The operator's allow-list of `${NAME}` secrets (issue 45, docs/access.md): the names a config may read from
 * the environment, decided outside the repository. Free of the schema library, so the CLI can add
 * `--allow-secret NAME` to it before any command loads.
 */

/** The environment variable listing the names `${NAME}` may read, comma- or space-separated. */
export const ALLOWED_SECRETS_VARIABLE = 'PAGEJSON_SECRETS';

/** An environment variable name as shells and twelve-factor apps write them. */
export const SECRET_NAME_PATTERN = /^[A-Z_][A-Z0-9_]*$/;

/** The names the operator allows `${NAME}` to read: PAGEJSON_SECRETS, comma- or space-separated. */
export function allowedSecretNames(env: Readonly<Record<string, string | undefined>>): Set<string> {
  const listed = Object.hasOwn(env, ALLOWED_SECRETS_VARIABLE) ? env[ALLOWED_SECRETS_VARIABLE] : undefined;
  return new Set((listed ?? '').split(/[\s,]+/).filter((name) => name !== ''));
}

/** The environment with `names` added to PAGEJSON_SECRETS (the CLI's repeatable `--allow-secret NAME`). */
export function withAllowedSecrets(env: Record<string, string | undefined>, names: readonly string[]): Record<string, string | undefined> {
  if (names.length === 0) return env;
  const allowed = [...new Set([...allowedSecretNames(env), ...names])];
  return { ...env, [ALLOWED_SECRETS_VARIABLE]: allowed.join(',') };
}
