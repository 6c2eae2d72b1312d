import { accountBalance, chargeCredits, grantCredits, type AccountBalance, type CreditSettings } from './accounts.js';
import { callerVariableNames, type ApiConfig } from '../config/index.js';
import {
  createKey,
  listKeys,
  revokeKey,
  rotateKey,
  type CreatedKey,
  type CreateKeyInput,
  type KeyView,
  type RotatedKey,
} from './key-service.js';
import { toMilli } from '../shared/index.js';
import { scraperByNumber } from '../fetch/index.js';
import {
  withObservation,
  type EndpointObservation,
  type EndpointRuntimeStatus,
  type StateStore,
  type UsageQuery,
  type UsageRow,
} from '../state/index.js';

/**
 * Everything the state commands (`keys`, `credits`, `usage`, `status`) and `generate`'s charge can ask of the
 * state, as one transport-free interface. The CLI gets it either in-process over the store (no daemon) or
 * from the daemon's admin socket, which serves this same service: both modes answer identically.
 */
export interface StateOperations {
  createKey(input: CreateKeyInput): Promise<CreatedKey>;
  listKeys(): Promise<KeyView[]>;
  revokeKey(id: string): Promise<KeyView>;
  rotateKey(id: string, graceMs: number): Promise<RotatedKey>;
  credits(account?: string): Promise<AccountBalance>;
  grantCredits(account: string | undefined, milliCredits: number): Promise<AccountBalance>;
  /**
   * Takes a cost up front (generation); throws NO_CREDITS when short. With `tokens` (the generated apiId and
   * the model tokens it spent), the charge and the tokens are recorded as a keyless usage row of that apiId
   * (counting no request).
   */
  charge(account: string | undefined, milliCredits: number, tokens?: GenerationTokens): Promise<AccountBalance>;
  usage(query: UsageQuery): Promise<UsageRow[]>;
  status(): Promise<EndpointStatusView[]>;
  /** Each endpoint's status as stored, its health baseline included (`run` and `check` judge with it). */
  endpointStates(): Promise<EndpointRuntimeStatus[]>;
  /** Record retrievals made outside the daemon (`run`, `check`): last fetch, health, findings, the baseline learned. */
  observe(observations: EndpointObservation[]): Promise<void>;
}

export interface GenerationTokens {
  apiId: string;
  promptTokens: number;
  completionTokens: number;
}

/** The dashboard fields (docs/wire.md) of one endpoint. */
export interface EndpointStatusView {
  apiId: string;
  status: 'active' | 'inactive';
  sourceUrl: string;
  scraper: 1 | 2 | 3;
  scraperName: string;
  caching: boolean;
  session: boolean;
  dynamic: boolean;
  variables: string[];
  lastFetchAt: string | null;
  lastError: string | null;
  lastErrorAt: string | null;
  /** Field health of the last extraction (null before any): see src/core/health. */
  health: 'healthy' | 'degraded' | 'broken' | 'blocked' | null;
  failingFields: string[];
  healthSince: string | null;
  /** What changed, field by field, in words, when not healthy. */
  findings: string[];
  /** The daemon's latest repair: a proposal waiting for `pagejson heal`, or one it applied. */
  repair: { outcome: 'proposed' | 'applied'; file: string; revision: number; at: string } | null;
  usage: { requests: number; errors: number; cacheHits: number; milliCredits: number; promptTokens: number; completionTokens: number };
}

export interface StateServiceOptions {
  store: StateStore;
  credits: CreditSettings;
  /** The configs now served (daemon) or on disk (CLI). */
  listConfigs: () => ApiConfig[] | Promise<ApiConfig[]>;
  now?: () => Date;
}

export function createStateService(options: StateServiceOptions): StateOperations {
  const { store, credits } = options;
  const keyOptions = { freeMilliCredits: toMilli(credits.freeCredits), now: options.now };
  return {
    createKey: (input) => createKey(store, input, keyOptions),
    listKeys: () => listKeys(store, { now: options.now }),
    revokeKey: (id) => revokeKey(store, id, { now: options.now }),
    rotateKey: (id, graceMs) => rotateKey(store, id, graceMs, keyOptions),
    credits: (account) => accountBalance(store, account, credits),
    grantCredits: (account, milli) => grantCredits(store, account, milli, credits),
    charge: async (account, milli, tokens) => {
      const balance = await chargeCredits(store, account, milli, credits);
      if (tokens) {
        // The generation's credits and tokens go into the usage of the apiId as a keyless row: the dashboard
        // tells credits spent on generation (keyless rows) from those spent on retrieval (rows of a key).
        const { apiId, promptTokens, completionTokens } = tokens;
        const charged = credits.enabled ? milli : 0;
        if (charged > 0 || promptTokens > 0 || completionTokens > 0) {
          await store.recordUsage({
            apiId,
            keyId: null,
            account: balance.account,
            milliCredits: charged,
            outcome: 'MODEL',
            at: (options.now ?? (() => new Date()))(),
            promptTokens,
            completionTokens,
          });
        }
      }
      return balance;
    },
    usage: (query) => store.usage(query),
    status: async () => endpointStatus(store, await options.listConfigs()),
    endpointStates: () => store.listEndpointStatus(),
    async observe(observations) {
      const known = new Map((await store.listEndpointStatus()).map((status) => [status.apiId, status]));
      for (const observation of observations) {
        const status = withObservation(known.get(observation.apiId), observation);
        known.set(observation.apiId, status);
        await store.setEndpointStatus(status);
      }
    },
  };
}

export async function endpointStatus(store: StateStore, configs: ApiConfig[]): Promise<EndpointStatusView[]> {
  const [runtime, usage] = await Promise.all([store.listEndpointStatus(), store.usage({})]);
  const runtimeById = new Map(runtime.map((r) => [r.apiId, r]));
  return [...configs]
    .sort((a, b) => a.apiId.localeCompare(b.apiId))
    .map((config) => {
      const total = { requests: 0, errors: 0, cacheHits: 0, milliCredits: 0, promptTokens: 0, completionTokens: 0 };
      for (const row of usage) {
        if (row.apiId !== config.apiId) continue;
        total.requests += row.requests;
        total.errors += row.errors;
        total.cacheHits += row.cacheHits;
        total.milliCredits += row.milliCredits;
        total.promptTokens += row.promptTokens;
        total.completionTokens += row.completionTokens;
      }
      const run = runtimeById.get(config.apiId);
      const variables = callerVariableNames(config);
      return {
        apiId: config.apiId,
        status: config.status,
        sourceUrl: config.url,
        scraper: config.scraper,
        scraperName: scraperByNumber(config.scraper).name,
        caching: config.caching,
        session: config.session,
        dynamic: variables.length > 0,
        variables,
        lastFetchAt: run?.lastFetchAt ?? null,
        lastError: run?.lastError ?? null,
        lastErrorAt: run?.lastErrorAt ?? null,
        health: run?.health ?? null,
        failingFields: run?.failingFields ?? [],
        healthSince: run?.healthSince ?? null,
        findings: run?.health && run.health !== 'healthy' ? (run.findings ?? []) : [],
        // A proposal for a revision that is no longer the file's is stale: not shown.
        repair: run?.repair && run.repair.revision === config.revision + (run.repair.outcome === 'proposed' ? 1 : 0) ? run.repair : null,
        usage: total,
      };
    });
}
