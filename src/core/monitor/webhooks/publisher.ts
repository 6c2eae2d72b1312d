import { randomUUID } from 'node:crypto';
import type { WebhookEventType, WebhookSubscriber } from '../../config/index.js';
import type { Delivery, MonitorStore } from '../store.js';

/**
 * Turns an event into one durable delivery per subscriber of its type (pagejson.json `webhooks`). The body is
 * the Standard Webhooks shape, `{ "type", "timestamp", "data" }`, serialised once: what is stored is exactly
 * what is signed and sent on every attempt.
 */
export interface WebhookPublisher {
  /** Resolves once the deliveries are recorded (they survive a kill -9 from then on); sending is the worker's. */
  publish(type: WebhookEventType, data: Record<string, unknown>): Promise<Delivery[]>;
}

export function newMessageId(): string {
  return `msg_${randomUUID().replaceAll('-', '')}`;
}

export function createWebhookPublisher(options: {
  subscribers: readonly WebhookSubscriber[];
  store: MonitorStore;
  now: () => number;
  onPublished?: () => void;
}): WebhookPublisher {
  return {
    async publish(type, data) {
      const at = options.now();
      const payload = JSON.stringify({ type, timestamp: new Date(at).toISOString(), data });
      const deliveries: Delivery[] = options.subscribers
        .filter((subscriber) => subscriber.events.includes(type))
        .map((subscriber) => ({
          id: newMessageId(),
          url: subscriber.url,
          secretEnv: subscriber.secretEnv,
          type,
          payload,
          createdAt: at,
          attempts: 0,
          nextAttemptAt: at,
          status: 'pending',
          lastError: null,
          deliveredAt: null,
        }));
      if (deliveries.length === 0) return [];
      await options.store.enqueue(deliveries);
      options.onPublished?.();
      return deliveries;
    },
  };
}
