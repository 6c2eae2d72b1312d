import type { FastifyInstance } from 'fastify';
import { API_ID_PATTERN } from '../core/config/constants.js';
import { PagejsonError } from '../core/shared/errors.js';
import type { Watch } from '../core/monitor/watch.js';

/**
 * Admin routes of monitors and webhooks (`pagejson monitor …`, `pagejson status`): the daemon runs the
 * schedules and holds the embedded monitor store, so the CLI asks it while it runs.
 */
function apiIdOf(value: string): string {
  if (!API_ID_PATTERN.test(value))
    throw new PagejsonError('USAGE', `"${value.slice(0, 80)}" is not an apiId`, {
      hint: 'apiIds are 1-64 characters of a-z, 0-9, _ and -',
    });
  return value;
}

function limitOf(value: string | undefined): number {
  const limit = value === undefined ? 20 : Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1_000)
    throw new PagejsonError('USAGE', 'limit must be a whole number from 1 to 1000');
  return limit;
}

export function registerMonitorRoutes(app: FastifyInstance, watch: Watch): void {
  app.get('/monitors', async () => watch.monitors.list());
  app.get<{ Params: { apiId: string }; Querystring: { limit?: string } }>('/monitors/:apiId/history', async (request) =>
    watch.monitors.history(apiIdOf(request.params.apiId), limitOf(request.query.limit)),
  );
  app.post<{ Params: { apiId: string } }>('/monitors/:apiId/run', async (request) => {
    const outcomes = await watch.monitors.runNow(apiIdOf(request.params.apiId));
    // Deliveries go out in the background; the run's answer does not wait for receivers.
    watch.deliveries.nudge();
    return outcomes;
  });
  app.get<{ Querystring: { limit?: string } }>('/webhooks/deliveries', async (request) =>
    (await watch.store.deliveries(limitOf(request.query.limit))).map(({ payload: _payload, ...rest }) => rest),
  );
}
