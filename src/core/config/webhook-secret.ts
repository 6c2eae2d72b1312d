import { jsonPath } from './problems.js';
import type { ProjectSettings } from './schema.js';

/**
 * Webhook signing secrets (docs/security.md, "Webhooks"): a receiver trusts what a signature vouches for, and
 * a secret of a few bytes is guessed offline from one signed delivery. At least 16 bytes, as the Standard
 * Webhooks specification's own secrets are (24 to 64): `whsec_<base64>` counts its decoded bytes, any other
 * text its UTF-8 bytes.
 */
export const MIN_WEBHOOK_SECRET_BYTES = 16;

export function webhookSecretBytes(secret: string): number {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice('whsec_'.length), 'base64').length : Buffer.byteLength(secret, 'utf8');
}

export const WEBHOOK_SECRET_HINT = 'generate one with `echo whsec_$(openssl rand -base64 32)` and set the variable to it';

/** What is wrong with a secret, or null when it is long enough. */
export function webhookSecretProblem(secret: string, envName: string): string | null {
  const bytes = webhookSecretBytes(secret);
  if (bytes >= MIN_WEBHOOK_SECRET_BYTES) return null;
  return `the webhook signing secret in ${envName} is ${bytes} byte${bytes === 1 ? '' : 's'} long; it needs at least ${MIN_WEBHOOK_SECRET_BYTES}`;
}

/** `validate`: every subscriber whose secret is set in this environment and too short (an unset one is the daemon's to report). */
export function webhookSecretProblems(
  settings: ProjectSettings,
  env: Record<string, string | undefined>,
): Array<{ path: string; message: string; hint: string }> {
  const problems: Array<{ path: string; message: string; hint: string }> = [];
  settings.webhooks.forEach((subscriber, index) => {
    const secret = env[subscriber.secretEnv];
    const problem = secret ? webhookSecretProblem(secret, subscriber.secretEnv) : null;
    if (problem) problems.push({ path: jsonPath(['webhooks', index, 'secretEnv']), message: problem, hint: WEBHOOK_SECRET_HINT });
  });
  return problems;
}
