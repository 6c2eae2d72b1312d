import type { FastifyInstance } from 'fastify';
import { isPagejsonError } from '../../core/shared/errors.js';
import type { Runtime } from '../../core/runtime.js';
import { createStateService } from '../../core/access/state-service.js';
import { sendError, type DashboardApiContext } from './api-common.js';
import { registerEndpointRoutes } from './api-endpoints.js';
import { registerGenerateRoutes } from './api-generate.js';
import { registerJobRoutes } from './api-jobs.js';
import { registerKeyAndUsageRoutes } from './api-state.js';
import { registerLoginRoutes } from './api-login.js';
import { registerRepairRoutes } from './api-repair.js';
import { createPageSampler } from './page-sampler.js';

/**
 * The dashboard's JSON API under /ui/api/: a thin layer over src/core, like the /external route. Inputs are
 * checked by zod schemas (ids by their patterns) before any lookup; errors are `{"error": {code, message,
 * hint}}` with the same codes and words as the CLI.
 */
export async function registerDashboardApi(api: FastifyInstance, options: { runtime: Runtime; publicUrl: () => string }): Promise<void> {
  const { runtime } = options;
  const context: DashboardApiContext = {
    ...options,
    state: createStateService({
      store: runtime.store,
      credits: runtime.settings.credits,
      listConfigs: () => runtime.configs.list(),
      now: runtime.now,
    }),
    pages: createPageSampler(runtime),
  };
  api.setErrorHandler((error, request, reply) => {
    if (!isPagejsonError(error) && ((error as { statusCode?: number }).statusCode ?? 500) >= 500)
      request.log.error({ err: error }, 'dashboard request failed');
    return sendError(reply, error);
  });
  api.get('/session', async (request) => ({
    csrf: request.dashboardSession!.csrf,
    expiresAt: new Date(request.dashboardSession!.expiresAt).toISOString(),
    publicUrl: options.publicUrl(),
    creditsEnabled: runtime.settings.credits.enabled,
    store: runtime.store.name,
  }));
  registerEndpointRoutes(api, context);
  registerGenerateRoutes(api, context);
  registerKeyAndUsageRoutes(api, context);
  registerLoginRoutes(api, context);
  registerJobRoutes(api, context);
  registerRepairRoutes(api, context);
}
