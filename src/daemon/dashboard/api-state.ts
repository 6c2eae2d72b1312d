import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { API_ID_PATTERN } from '../../core/config/constants.js';
import { DEFAULT_ACCOUNT } from '../../core/access/key-service.js';
import { KEY_ID_PATTERN } from '../../core/access/keys.js';
import { addRow, emptyTotals, totalsBy, usageSeries, type UsageTotals } from '../../core/access/usage-series.js';
import { KeyIdParam, parse, type DashboardApiContext } from './api-common.js';

/**
 * Keys (list, create, revoke, rotate with grace) through the same state service as `pagejson keys` and the
 * admin socket; usage as hour and day series, per endpoint and per key, with the balance and the credits
 * spent on generation versus retrieval.
 */
const CreateKeyBody = z
  .object({
    label: z.string().trim().max(100).nullable().default(null),
    scope: z.array(z.string().regex(API_ID_PATTERN, 'not an apiId')).max(1_000).nullable().default(null),
  })
  .strict();
const RotateBody = z
  .object({
    graceMinutes: z
      .number()
      .int()
      .min(0)
      .max(60 * 24 * 30)
      .default(0),
  })
  .strict();
const UsageQuery = z
  .object({
    unit: z.enum(['hour', 'day']).default('hour'),
    apiId: z.string().regex(API_ID_PATTERN, 'not an apiId').optional(),
    keyId: z.string().regex(KEY_ID_PATTERN, 'not a key id').optional(),
  })
  .strict();

/** Buckets a chart shows: two days of hours, a month of days. */
const BUCKETS = { hour: 48, day: 30 } as const;

/** Busiest first. */
function ranked(totals: Map<string, UsageTotals>): Array<{ id: string; totals: UsageTotals }> {
  return [...totals]
    .map(([id, sums]) => ({ id, totals: sums }))
    .sort((a, b) => b.totals.requests - a.totals.requests || a.id.localeCompare(b.id));
}

export function registerKeyAndUsageRoutes(api: FastifyInstance, context: DashboardApiContext): void {
  const { state, runtime } = context;

  api.get('/keys', async () => ({ keys: await state.listKeys() }));
  api.post('/keys', async (request, reply) => {
    const body = parse(CreateKeyBody, request.body, 'new key');
    const created = await state.createKey({ label: body.label || null, scope: body.scope && body.scope.length > 0 ? body.scope : null });
    return reply.code(201).send(created);
  });
  api.post('/keys/:id/revoke', async (request) => state.revokeKey(parse(KeyIdParam, request.params, 'key').id));
  api.post('/keys/:id/rotate', async (request) => {
    const { id } = parse(KeyIdParam, request.params, 'key');
    const body = parse(RotateBody, request.body, 'rotate');
    return state.rotateKey(id, body.graceMinutes * 60_000);
  });

  api.get('/usage', async (request) => {
    const query = parse(UsageQuery, request.query, 'usage');
    const count = BUCKETS[query.unit];
    const filter = { ...(query.apiId ? { apiId: query.apiId } : {}), ...(query.keyId ? { keyId: query.keyId } : {}) };
    const rows = await runtime.store.usage(query.unit === 'hour' ? { ...filter, unit: 'hour', hours: count } : { ...filter, days: count });
    const balance = await state.credits(DEFAULT_ACCOUNT);
    const totals = rows.reduce((sum, row) => addRow(sum, row), emptyTotals());
    return {
      unit: query.unit,
      points: usageSeries(rows, query.unit, count, runtime.now()),
      totals,
      byEndpoint: ranked(totalsBy(rows, (row) => row.apiId)),
      byKey: ranked(totalsBy(rows, (row) => row.keyId)),
      balance: { account: balance.account, milliCredits: balance.milliCredits },
      creditsEnabled: runtime.settings.credits.enabled,
    };
  });
}
