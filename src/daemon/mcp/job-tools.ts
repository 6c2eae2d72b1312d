import type { EndpointTool } from '../../core/catalog/endpoint-tools.js';
import { jobView } from '../../core/jobs/job-view.js';
import { resultsPage } from '../../core/jobs/results-format.js';
import { PagejsonError } from '../../core/shared/errors.js';
import type { Runtime } from '../../core/runtime.js';
import { MESSAGES } from '../errors.js';
import { jobKeyOf, ownJob, startJobForKey } from '../jobs-for-key.js';

/**
 * Jobs as MCP tools beside the endpoints' (docs/jobs.md, "MCP"): `startJob` (the body of `POST /jobs`),
 * `getJob` (its state and counts) and `getJobResults` (a page of its lines). Their names hold capitals, which
 * an apiId never does, so no endpoint can shadow them. They act for the session's key as `/jobs` does.
 */
export const JOB_TOOL_NAMES = ['startJob', 'getJob', 'getJobResults'] as const;
type JobToolName = (typeof JOB_TOOL_NAMES)[number];

/** Lines one `getJobResults` gives at most, and about how much text (an agent's context is the bound). */
const PAGE_LINES = 100;
const PAGE_BYTES = 256 * 1024;

const text = (description: string, extra: Record<string, unknown> = {}) => ({ type: 'string', description, ...extra });
const strings = (description: string) => ({ type: 'array', items: { type: 'string' }, description });
const jobShape = { type: 'object', properties: { id: { type: 'string' }, state: { type: 'string' }, total: { type: 'integer' } } };
const idInput = { id: text('the job id startJob gave, j_…', { pattern: '^j_[0-9A-Za-z]{16}$' }) };

export const JOB_TOOLS: EndpointTool[] = [
  {
    name: 'startJob',
    description:
      'Run one endpoint over many inputs (a job): give apiId and exactly one of inputs (variable sets), urls, sitemap or from (another endpoint\'s list field, e.g. {"apiId": "catalogue", "field": "books[].url"}). Each input is charged as one request. Returns the job id; read progress with getJob and lines with getJobResults.',
    inputSchema: {
      type: 'object',
      properties: {
        apiId: text('the endpoint to run'),
        inputs: {
          type: 'array',
          items: { type: 'object', additionalProperties: { type: 'string' } },
          description: 'variable sets, one per input',
        },
        urls: strings('full URLs of pages the endpoint reads; their variables are read from each URL'),
        sitemap: text('a sitemap or sitemap index URL'),
        include: strings('with sitemap: URL patterns to keep (* is any text)'),
        exclude: strings('with sitemap: URL patterns to leave out'),
        from: {
          type: 'object',
          properties: { apiId: { type: 'string' }, field: { type: 'string' } },
          required: ['apiId', 'field'],
          description: "another endpoint's answer: the URLs its list field gives",
        },
        limit: { type: 'integer', minimum: 1, description: 'take the first N inputs' },
        concurrency: { type: 'integer', minimum: 1, maximum: 64, description: 'inputs retrieved at once' },
        webhook: { type: 'boolean', description: "tell the daemon's webhook subscribers when the job ends" },
      },
      required: ['apiId'],
      additionalProperties: false,
    },
    outputSchema: jobShape,
  },
  {
    name: 'getJob',
    description:
      'A job started with startJob: state (queued, running, done, failed, cancelled), counts (total, done, failed, skipped), credits, reason.',
    inputSchema: { type: 'object', properties: idInput, required: ['id'], additionalProperties: false },
    outputSchema: { type: 'object', properties: { ...jobShape.properties, done: { type: 'integer' }, failed: { type: 'integer' } } },
  },
  {
    name: 'getJobResults',
    description: `A page of a job's result lines so far (at most ${PAGE_LINES}): each {index, input, outcome, data, errors}. Ask again with offset = next until next is null.`,
    inputSchema: {
      type: 'object',
      properties: {
        ...idInput,
        offset: { type: 'integer', minimum: 0, description: 'lines to pass over (next of the previous page)' },
        limit: { type: 'integer', minimum: 1, maximum: PAGE_LINES },
        errorsOnly: { type: 'boolean', description: 'only the lines without data, with their reason' },
      },
      required: ['id'],
      additionalProperties: false,
    },
    outputSchema: { type: 'object', properties: { lines: { type: 'array' }, next: { type: ['integer', 'null'] } } },
  },
];

export const isJobTool = (name: string): name is JobToolName => (JOB_TOOL_NAMES as readonly string[]).includes(name);

const invalid = (message: string) => new PagejsonError('JOB_INVALID', message);

function wholeArg(args: Record<string, unknown>, name: string, min: number, max: number, fallback: number): number {
  const value = args[name];
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max)
    throw invalid(`${name} must be a whole number from ${min} to ${max}`);
  return value;
}

/** One call of a job tool for the key; throws the wire's errors (the caller says them as a tool error). */
export async function callJobTool(runtime: Runtime, apikey: string, name: JobToolName, args: Record<string, unknown>): Promise<unknown> {
  const key = await jobKeyOf(runtime, apikey);
  if (!key) throw new PagejsonError('KEY_INVALID', MESSAGES.keyInvalid);
  if (name === 'startJob') {
    const job = await startJobForKey(runtime, key, args);
    return { id: job.id, state: job.state, total: job.counts.total };
  }
  const job = await ownJob(runtime, key.id, typeof args.id === 'string' ? args.id : '');
  if (name === 'getJob') return jobView(job);
  return resultsPage(runtime.jobs.results(job.id), {
    offset: wholeArg(args, 'offset', 0, Number.MAX_SAFE_INTEGER, 0),
    limit: wholeArg(args, 'limit', 1, PAGE_LINES, PAGE_LINES),
    maxBytes: PAGE_BYTES,
    errorsOnly: args.errorsOnly === true,
  });
}
