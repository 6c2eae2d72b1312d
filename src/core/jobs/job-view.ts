import type { WebhookEventType } from '../config/index.js';
import { fromMilli } from '../shared/index.js';
import type { JobRecord } from './types.js';

/**
 * A job as its owner reads it (`GET /jobs/{id}`, MCP, the dashboard, the job webhooks): state, counts (credits
 * in credits), times. The key's id and the heartbeat stay inside.
 */
export function jobView(record: JobRecord): Record<string, unknown> {
  const { counts, keyId: _keyId, heartbeatAt: _heartbeat, ...rest } = record;
  return {
    ...rest,
    total: counts.total,
    done: counts.done,
    failed: counts.failed,
    skipped: counts.skipped,
    credits: fromMilli(counts.credits),
  };
}

/**
 * The webhook a finished job sends when it asked for one (`"webhook": true`): `job.completed` for a job that
 * ran to its end, `job.failed` for one that stopped (out of credits); none for one its owner cancelled.
 */
export function jobWebhook(record: JobRecord): { type: WebhookEventType; data: Record<string, unknown> } | undefined {
  if (!record.webhook) return undefined;
  if (record.state === 'done') return { type: 'job.completed', data: jobView(record) };
  if (record.state === 'failed') return { type: 'job.failed', data: jobView(record) };
  return undefined;
}
