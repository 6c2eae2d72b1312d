import { z } from 'zod';

/**
 * The file formats of pagejson, in zod. `.strict()` everywhere: a typo in a key is an error a user sees,
 * not a setting silently ignored. The published JSON Schemas in configs/ are generated from these
 * (see json-schemas.ts); cross-field rules that JSON Schema cannot say live in validate.ts.
 */

import { API_ID_PATTERN, FIELD_NAME_PATTERN, FIELD_TYPES, SCALAR_TYPES, TRANSFORM_PATTERN, VARIABLE_NAME_PATTERN } from './constants.js';
import { ActionsSchema } from './actions.js';
import { PaginationSchema } from './pagination.js';
import { LoginSchema } from './login.js';
import { ProxySchema } from './proxy.js';
import { BrowserSchema, DEFAULT_MAX_SESSIONS } from './browser.js';
import { RequestSchema } from './request.js';
import { ModelEndpointSchema } from './model-endpoint.js';

export * from './constants.js';

const Transform = z
  .string()
  .regex(
    TRANSFORM_PATTERN,
    'unknown transform: use trim, number, integer, boolean, absoluteUrl, date, availability, plainText, regex:<pattern> or json:<path>',
  );

/** Items of an array of scalars: each element the array's selector matches yields one value. */
export const ScalarItemsSchema = z
  .object({
    type: z.enum(SCALAR_TYPES),
    attribute: z.string().min(1).optional(),
    transform: z.array(Transform).optional(),
  })
  .strict();

export const FieldSchema = z
  .object({
    name: z.string().regex(FIELD_NAME_PATTERN, 'field names start with a letter, _ or $ and hold letters, digits, _, $ or -'),
    type: z.enum(FIELD_TYPES),
    /** Absent: a model field, filled by the config's model at retrieval (null with `heuristic`). */
    selector: z.string().min(1).optional(),
    /** Absent: the element's whitespace-collapsed text. */
    attribute: z.string().min(1).optional(),
    transform: z.array(Transform).optional(),
    description: z.string().optional(),
    /** An empty value of a required field makes the whole extraction fail rather than yield null. */
    required: z.boolean().optional(),
    get fields(): z.ZodOptional<z.ZodArray<typeof FieldSchema>> {
      return z.array(FieldSchema).optional();
    },
    items: ScalarItemsSchema.optional(),
  })
  .strict();

export type Field = z.infer<typeof FieldSchema>;
export type ScalarItems = z.infer<typeof ScalarItemsSchema>;

export const VariableSchema = z
  .object({
    example: z.string().describe('Used by generate, run and test; restored when the variable becomes a fixed value again'),
    pattern: z.string().optional().describe('A regular expression every value must match'),
    description: z.string().optional(),
  })
  .strict();
export type Variable = z.infer<typeof VariableSchema>;

export const GeneratedSchema = z
  .object({
    at: z.string(),
    model: z.string(),
    scraper: z.number().int(),
    sample: z.unknown().optional(),
    usage: z.object({ promptTokens: z.number().int().nonnegative(), completionTokens: z.number().int().nonnegative() }).strict().optional(),
  })
  .strict();

/** Variable values of one watched request of a dynamic config (checked against the variables at validate). */
const MonitorValuesSchema = z.record(z.string().regex(VARIABLE_NAME_PATTERN), z.union([z.string().max(2_000), z.number(), z.boolean()]));

export const MonitorSchema = z
  .object({
    every: z
      .string()
      .min(1)
      .max(100)
      .describe('How often the daemon refreshes the endpoint: a duration ("15m", "1h", "1d") or a cron expression ("0 9 * * 1-5", UTC)'),
    variables: z
      .array(MonitorValuesSchema)
      .min(1)
      .max(100)
      .optional()
      .describe('For a dynamic config: the variable sets to watch, one run each'),
  })
  .strict();
export type MonitorSettings = z.infer<typeof MonitorSchema>;

export const ApiConfigSchema = z
  .object({
    $schema: z.string().optional(),
    apiId: z.string().regex(API_ID_PATTERN, 'apiId is 1-64 characters of a-z, 0-9, _ and -, starting with a letter or digit'),
    description: z
      .string()
      .max(1_000)
      .optional()
      .describe('What the endpoint gives, in words: shown in the listing, the API docs and to agents as the MCP tool description'),
    revision: z.number().int().min(1).default(1),
    status: z.enum(['active', 'inactive']).default('active'),
    url: z.string().min(1),
    variables: z.record(z.string().regex(VARIABLE_NAME_PATTERN), VariableSchema).default({}),
    scraper: z.union([z.literal(1), z.literal(2), z.literal(3)]).default(1),
    session: z.boolean().default(false),
    request: RequestSchema.optional(),
    proxy: ProxySchema.optional(),
    caching: z.boolean().default(true),
    model: z.string().min(1).default('heuristic'),
    selector: z.string().min(1).default('body'),
    rule: z.string().nullable().default(null),
    structure: z.array(FieldSchema).min(1, 'a structure needs at least one field'),
    generated: GeneratedSchema.optional(),
    monitor: MonitorSchema.optional().describe('Scheduled refresh by the daemon, with change detection and webhooks (docs/monitors.md)'),
    actions: ActionsSchema.optional(),
    pagination: PaginationSchema.optional().describe(
      'Read the list over several pages or rounds: next link, page variable, load more or scroll (docs/pagination.md)',
    ),
    login: LoginSchema.optional(),
  })
  .strict();

/** What a config file holds (defaults may be left out) and what the runtime works with (all filled in). */
export type ApiConfigInput = z.input<typeof ApiConfigSchema>;
export type ApiConfig = z.output<typeof ApiConfigSchema>;
export type ScraperNumber = ApiConfig['scraper'];

// A `models` entry (docs/models.md): its own file, model-endpoint.ts.
export { ModelEndpointSchema, type ModelEndpoint } from './model-endpoint.js';

/** What a webhook subscriber can be told (docs/monitors.md). */
export const WEBHOOK_EVENTS = [
  'data.changed',
  'endpoint.degraded',
  'endpoint.broken',
  'endpoint.recovered',
  'heal.proposed',
  'job.completed',
  'job.failed',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[number];

export const WebhookSchema = z
  .object({
    url: z
      .string()
      .url()
      .max(2_000)
      .refine((url) => /^https?:\/\//i.test(url), 'a webhook url starts with http:// or https://'),
    events: z
      .array(z.enum(WEBHOOK_EVENTS))
      .min(1)
      .default([...WEBHOOK_EVENTS]),
    secretEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'secretEnv is the name of an environment variable, e.g. PAGEJSON_WEBHOOK_SECRET')
      .describe(
        'Environment variable holding the signing secret (Standard Webhooks: whsec_<base64>, or any other string used as raw bytes)',
      ),
  })
  .strict();
export type WebhookSubscriber = z.output<typeof WebhookSchema>;

export const ProjectSettingsSchema = z
  .object({
    $schema: z.string().optional(),
    configs: z.string().default('configs'),
    dataDir: z.string().default('.pagejson'),
    server: z
      .object({
        host: z.string().default('127.0.0.1'),
        port: z.number().int().min(0).max(65535).default(8080),
        allowedHosts: z
          .array(
            z
              .string()
              .min(1)
              .max(253)
              .regex(/^[^\s/@]+$/, 'write a host name, e.g. api.example.com'),
          )
          .max(50)
          .default([])
          .describe(
            'Further names the daemon answers for (the Host header); loopback names, the bound address and dashboard.publicUrl always count. Others get 421 (docs/security.md)',
          ),
      })
      .strict()
      .default({ host: '127.0.0.1', port: 8080, allowedHosts: [] }),
    cache: z
      .object({
        freshMinutes: z.number().positive().default(15),
        keepHours: z.number().positive().default(24),
        memoryEntries: z.number().int().positive().default(10_000),
        memoryMegabytes: z
          .number()
          .positive()
          .default(64)
          .describe(
            'Bound of the in-memory cache in bytes of response bodies (kept gzipped; an eighth of it keeps the bytes of those read lately); the rest is read from SQLite',
          ),
      })
      .strict()
      .default({ freshMinutes: 15, keepHours: 24, memoryEntries: 10_000, memoryMegabytes: 64 }),
    credits: z
      .object({
        enabled: z.boolean().default(true),
        freeCredits: z.number().nonnegative().default(100),
        hit: z
          .number()
          .nonnegative()
          .max(1_000_000)
          .optional()
          .describe(
            'Credits an answer from the cache (HIT or STALE) costs, whatever its pages; absent: the same as from the source (the price per page, 0.4 or 0.5 with scraper 3)',
          ),
      })
      .strict()
      .default({ enabled: true, freeCredits: 100 }),
    models: z.record(z.string(), ModelEndpointSchema).default({}),
    fetch: z
      .object({
        timeoutMs: z.number().int().positive().default(20_000),
        maxBytes: z
          .number()
          .int()
          .positive()
          .default(10 * 1024 * 1024),
        perOriginConcurrency: z.number().int().positive().default(4),
        allowPrivateNetworks: z.boolean().default(false),
        proxy: ProxySchema.optional(),
        actionsTimeoutMs: z
          .number()
          .int()
          .positive()
          .max(600_000)
          .default(10_000)
          .describe(
            "Time bound of a config's browser actions and load-more/scroll rounds together, after the page loaded (scraper 3, docs/actions.md); fetch.timeoutMs still bounds the whole fetch",
          ),
      })
      .strict()
      .default({
        timeoutMs: 20_000,
        maxBytes: 10 * 1024 * 1024,
        perOriginConcurrency: 4,
        allowPrivateNetworks: false,
        actionsTimeoutMs: 10_000,
      }),
    browser: BrowserSchema.default({ maxSessions: DEFAULT_MAX_SESSIONS }),
    extraction: z
      .object({
        timeoutMs: z
          .number()
          .int()
          .positive()
          .default(5_000)
          .describe('Budget of one extraction (parse + selectors) in the daemon; past it the worker is ended and the request fails'),
        maxDepth: z.number().int().min(16).default(512).describe('Deepest element nesting a page may have'),
        maxElements: z.number().int().positive().default(200_000).describe('Most elements a page may have'),
        threads: z.number().int().positive().optional().describe('Extraction worker threads (default: the number of cores)'),
        failureCacheSeconds: z
          .number()
          .nonnegative()
          .default(30)
          .describe('How long a failed extraction is answered from memory instead of being repeated'),
      })
      .strict()
      .default({ timeoutMs: 5_000, maxDepth: 512, maxElements: 200_000, failureCacheSeconds: 30 }),
    limits: z
      .object({
        failedRetrievalsPerMinute: z
          .number()
          .int()
          .positive()
          .default(30)
          .describe('Failed retrievals one key may cause per minute before its uncached requests are refused (429)'),
      })
      .strict()
      .default({ failedRetrievalsPerMinute: 30 }),
    docs: z
      .object({
        enabled: z
          .boolean()
          .default(true)
          .describe(
            'Serve /openapi.json and the /docs reference page (to callers with an API key, showing the endpoints the key may call)',
          ),
        sourceUrls: z
          .boolean()
          .default(false)
          .describe(
            "Show each endpoint's source URL in /openapi.json and /docs (they may name intranet hosts or carry secrets in query strings)",
          ),
      })
      .strict()
      .default({ enabled: true, sourceUrls: false }),
    dashboard: z
      .object({
        enabled: z.boolean().default(true).describe('Serve the web dashboard at /ui/ (sign in with a link from `pagejson dashboard`)'),
        publicUrl: z
          .string()
          .url()
          .max(500)
          .refine((url) => /^https?:\/\/[^/]+\/?$/i.test(url), 'write the origin only, e.g. https://pagejson.example.com')
          .optional()
          .describe(
            'The origin users reach the daemon at, when a proxy stands in front (login links use it; https makes the session cookie Secure)',
          ),
        sessionHours: z.number().int().min(1).max(720).default(12).describe('How long a dashboard sign-in lasts'),
      })
      .strict()
      .default({ enabled: true, sessionHours: 12 }),
    health: z
      .object({
        refuseDegraded: z
          .boolean()
          .default(false)
          .describe(
            "Answer a degraded endpoint's requests as a broken one's (502 EXTRACTION_EMPTY, refunded) instead of serving its data with X-Pagejson-Health: degraded",
          ),
      })
      .strict()
      .default({ refuseDegraded: false }),
    heal: z
      .enum(['off', 'propose', 'apply'])
      .default('propose')
      .describe(
        'What the daemon does when an endpoint comes out degraded or broken: nothing, write configs/<apiId>.proposed.json, or apply the repair as a new revision',
      ),
    monitors: z
      .object({
        enabled: z.boolean().default(true).describe('Run the schedules of configs that have a monitor'),
        historyEntries: z.number().int().min(1).max(1_000).default(100).describe('Changes and health events kept per endpoint'),
      })
      .strict()
      .default({ enabled: true, historyEntries: 100 }),
    jobs: z
      .object({
        concurrency: z.number().int().min(1).max(64).default(4).describe("A job's items retrieved at once, unless the job asks for fewer"),
        maxInputs: z.number().int().min(1).max(1_000_000).default(100_000).describe('Most inputs one job may have (docs/jobs.md)'),
        perOriginConcurrency: z
          .number()
          .int()
          .min(1)
          .max(64)
          .default(2)
          .describe(
            'Job items asking one origin at once, across every job (with Redis, every daemon and worker); their pagination pages follow within the turn',
          ),
        minDelayMs: z
          .number()
          .int()
          .min(0)
          .max(60_000)
          .default(250)
          .describe('Least time between the starts of two job items at one origin (a 429 and its Retry-After pause it longer)'),
        robots: z
          .enum(['respect', 'ignore'])
          .default('respect')
          .describe("Whether job traffic follows the source's robots.txt (ignore: the operator takes that on)"),
        workerLockMs: z
          .number()
          .int()
          .min(500)
          .max(600_000)
          .default(30_000)
          .describe('With Redis: how long the items of a worker that stopped answering stay taken before another worker runs them'),
      })
      .strict()
      .default({ concurrency: 4, maxInputs: 100_000, perOriginConcurrency: 2, minDelayMs: 250, robots: 'respect', workerLockMs: 30_000 }),
    webhooks: z.array(WebhookSchema).max(50).default([]),
    webhookDelivery: z
      .object({
        timeoutMs: z.number().int().positive().max(60_000).default(10_000).describe('Longest one delivery attempt may take'),
        firstRetrySeconds: z
          .number()
          .positive()
          .default(10)
          .describe('Wait before the first retry; each further retry waits twice as long (at most an hour)'),
        retryForHours: z.number().positive().max(168).default(24).describe('How long a failing delivery is retried before it is given up'),
      })
      .strict()
      .default({ timeoutMs: 10_000, firstRetrySeconds: 10, retryForHours: 24 }),
    metrics: z
      .object({
        listen: z
          .union([
            z.string().regex(/^[^\s:]+:[0-9]{1,5}$|^\[[0-9a-fA-F:.]+\]:[0-9]{1,5}$/, 'write host:port, e.g. 127.0.0.1:9464'),
            z.literal(false),
          ])
          .default('127.0.0.1:9464')
          .describe('Where /metrics is served, apart from the public port; false: no separate listener'),
        tokenEnv: z
          .string()
          .optional()
          .describe('Environment variable holding a bearer token; when set, the public port also serves /metrics to requests carrying it'),
      })
      .strict()
      .default({ listen: '127.0.0.1:9464' }),
  })
  .strict();

export type ProjectSettingsInput = z.input<typeof ProjectSettingsSchema>;
export type ProjectSettings = z.output<typeof ProjectSettingsSchema>;
