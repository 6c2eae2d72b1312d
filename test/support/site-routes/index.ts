import type { RouteHandler } from '../site.js';
import { actionRoutes } from './actions.js';
import { accessRoutes } from './access.js';
import { browserHostileRoutes } from './browser-hostile.js';
import { blockRoutes } from './blocks.js';
import { charsetRoutes } from './charset.js';
import { daemonRoutes } from './daemon.js';
import { dashboardRoutes } from './dashboard.js';
import { driftRoutes } from './drift.js';
import { healthRoutes } from './health.js';
import { healTrustRoutes } from './heal-trust.js';
import { watchRoutes } from './watch.js';
import { faultRoutes } from './faults.js';
import { fingerprintRoutes } from './fingerprint.js';
import { hostileRoutes } from './hostile.js';
import { jobRoutes } from './jobs.js';
import { jsRoutes } from './js.js';
import { loginRoutes } from './login.js';
import { paginationRoutes } from './pagination.js';
import { sessionRoutes } from './session.js';

/**
 * Dynamic routes of the fixture site, by exact pathname. Each group lives in its own file here and is
 * spread into this table, so that areas of the test suite add routes without touching each other.
 */
export const siteRoutes: Record<string, RouteHandler> = {
  ...actionRoutes,
  ...accessRoutes,
  ...browserHostileRoutes,
  ...blockRoutes,
  ...charsetRoutes,
  ...daemonRoutes,
  ...dashboardRoutes,
  ...driftRoutes,
  ...healthRoutes,
  ...healTrustRoutes,
  ...watchRoutes,
  ...faultRoutes,
  ...fingerprintRoutes,
  ...hostileRoutes,
  ...jobRoutes,
  ...jsRoutes,
  ...loginRoutes,
  ...paginationRoutes,
  ...sessionRoutes,
  '/slow.html': async (_req, res) => {
    await new Promise((resolve) => setTimeout(resolve, 300));
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      '<!doctype html><html><head><title>Slow page</title></head><body><h1>Slow page</h1><p class="note">It took a while.</p></body></html>',
    );
  },
  '/error-500.html': (_req, res) => {
    res.writeHead(500, { 'content-type': 'text/html' });
    res.end('<h1>Internal error</h1>');
  },
  '/echo-headers': (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(req.headers));
  },
};
