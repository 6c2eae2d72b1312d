import { Webhook } from 'standardwebhooks';

/**
 * Signing per the Standard Webhooks specification, with its reference implementation (`standardwebhooks`).
 * A secret written as `whsec_<base64>` is the specification's form; any other string is used as raw bytes,
 * so a plain passphrase in the environment still signs (receivers then verify with the same raw bytes).
 */
export function webhookSigner(secret: string): Webhook {
  return secret.startsWith('whsec_') ? new Webhook(secret) : new Webhook(new TextEncoder().encode(secret), { format: 'raw' });
}

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

export function signedHeaders(secret: string, id: string, at: Date, payload: string): SignedHeaders {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': webhookSigner(secret).sign(id, at, payload),
  };
}
