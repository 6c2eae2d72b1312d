import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { actionSteps } from '../../core/config/action-text.js';
import { checkVariableValues, exampleValues, resolveSourceUrl } from '../../core/config/url-template.js';
import { accessOf } from '../../core/fetch/net/access-of.js';
import { loginOf } from '../../core/fetch/login/login-of.js';
import { isPagejsonError, PagejsonError } from '../../core/shared/errors.js';
import { ApiIdParam, parse, type DashboardApiContext } from './api-common.js';

/**
 * The endpoint page's "Test login" (docs/access.md, "Logins"; docs/dashboard.md): signs in afresh with the
 * saved config's login (the daemon's environment gives its `${NAME}`s), fetches the endpoint's page with the new
 * session and says how it went: signed in and the page showed as a signed-in visitor sees it, or the error in
 * words. The new session replaces the kept one, as a renewal would. Never a value: the answer names the
 * session's cookies, not what they hold.
 */
const TestBody = z.object({}).strict().default({});

interface TestAnswer {
  ok: boolean;
  finalUrl?: string;
  status?: number;
  error?: { code: string; message: string; hint?: string };
}

export function registerLoginRoutes(api: FastifyInstance, context: DashboardApiContext): void {
  const { runtime } = context;
  api.post('/endpoints/:apiId/test-login', async (request): Promise<TestAnswer> => {
    const { apiId } = parse(ApiIdParam, request.params, 'apiId');
    parse(TestBody, request.body ?? {}, 'test login');
    const config = runtime.configs.get(apiId);
    if (!config)
      throw new PagejsonError('CONFIG_NOT_FOUND', `no endpoint "${apiId}"`, {
        hint: 'it may have been removed or renamed; reload the list',
      });
    if (!config.login)
      throw new PagejsonError('USAGE', `${apiId} has no login`, {
        hint: 'add one: pagejson edit <apiId> --set \'login={"url": …, "form": {…}}\' (docs/access.md)',
      });
    const values = exampleValues(config);
    const problems = checkVariableValues(config, values);
    if (problems.length > 0)
      throw new PagejsonError(problems[0]!.code, problems[0]!.message, { hint: 'give every variable of the endpoint an example' });
    try {
      const page = await runtime.scrapers.get(config.scraper).fetch({
        url: resolveSourceUrl(config, values),
        ...accessOf(config),
        ...loginOf(config, { fresh: true }),
        ...actionSteps(config, values),
      });
      return { ok: true, finalUrl: page.finalUrl, status: page.status };
    } catch (error) {
      if (!isPagejsonError(error)) throw error;
      return { ok: false, error: { code: error.code, message: error.message, ...(error.hint ? { hint: error.hint } : {}) } };
    }
  });
}
