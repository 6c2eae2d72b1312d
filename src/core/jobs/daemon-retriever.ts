import type { RetrievalService } from '../retrieval/index.js';
import type { ItemAnswer, JobRecord } from './types.js';

/**
 * A daemon job's items: each one request through the daemon's retrieval (key, scope, cache, credits, health,
 * pagination: the stages of /external), acting for the key that started the job by its id.
 */
export function daemonItemRetriever(retrieval: RetrievalService, record: Pick<JobRecord, 'apiId' | 'keyId'>, creditsEnabled: boolean) {
  return async (values: Record<string, string>): Promise<ItemAnswer> => {
    const answer = await retrieval.retrieve({
      apiId: record.apiId,
      apikey: undefined,
      ...(record.keyId ? { keyId: record.keyId } : {}),
      method: 'POST',
      body: { raw: Buffer.from(JSON.stringify(values)), contentType: 'application/json' },
      query: {},
    });
    const data = (JSON.parse(answer.body) as { data: Record<string, unknown> }).data;
    return {
      data,
      health: answer.health,
      // An answer from the cache was fetched that long ago.
      fetchedAt: new Date(Date.now() - answer.ageSeconds * 1000).toISOString(),
      milliCredits: creditsEnabled ? answer.cost : 0,
    };
  };
}
