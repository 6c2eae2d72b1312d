import type { ApiConfigInput } from '../../../src/core/config/schema.js';
import type { RouteHandler } from '../site.js';

/**
 * A job board whose listing a test changes between monitor runs: `site.state.get('jobs')` holds the jobs as
 * JSON (`[{ "id", "title", "pay" }]`), or `maintenance` for a page with none of them (broken). Default: two jobs.
 */
export const DEFAULT_JOBS = [
  { id: 'j1', title: 'Line cook', pay: '18' },
  { id: 'j2', title: 'Baker', pay: '21' },
];

export const watchRoutes: Record<string, RouteHandler> = {
  '/watch/jobs': (_req, res, site) => {
    const state = site.state.get('jobs');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    if (state === 'maintenance') {
      res.end('<!doctype html><html><body><h2>Down for maintenance</h2></body></html>');
      return;
    }
    const jobs = state ? (JSON.parse(state) as typeof DEFAULT_JOBS) : DEFAULT_JOBS;
    const items = jobs
      .map((job) => `<li class="job"><a class="title" href="/jobs/${job.id}">${job.title}</a><span class="pay">$${job.pay}/h</span></li>`)
      .join('');
    res.end(`<!doctype html><html><head><title>Jobs</title></head><body><h1>Open jobs</h1><ul class="jobs">${items}</ul></body></html>`);
  },
};

/** The endpoint over that page that the monitor tests watch (every 15 minutes unless told otherwise). */
export function jobsConfig(origin: string, every = '15m'): ApiConfigInput {
  return {
    apiId: 'jobs',
    url: `${origin}/watch/jobs`,
    monitor: { every },
    structure: [
      {
        name: 'jobs',
        type: 'array',
        selector: 'li.job',
        fields: [
          { name: 'url', type: 'string', selector: 'a.title', attribute: 'href' },
          { name: 'title', type: 'string', selector: 'a.title' },
          { name: 'pay', type: 'number', selector: '.pay' },
        ],
      },
    ],
  };
}
