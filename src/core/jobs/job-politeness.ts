import { resolveSourceUrl, type ApiConfig, type ProjectSettings } from '../config/index.js';
import { createMemoryOriginGate, type OriginGate } from './origin-gate.js';
import { createRobotsFetcher, createRobotsRules, type RobotsFetcher } from './robots.js';
import type { ItemPoliteness } from './runner.js';

/**
 * The politeness every job of a process shares (docs/jobs.md, "Polite by default"), from pagejson.json `jobs`:
 * one origin gate (this process's, or the Redis one every daemon and worker shares) and one robots.txt reader,
 * unless `jobs.robots` is `ignore`. Each job asks it for its endpoint's: an item's URL is its endpoint's
 * template filled with the item's variables.
 */
export interface JobPoliteness {
  gate: OriginGate;
  forEndpoint(config: ApiConfig | undefined): ItemPoliteness | undefined;
  close(): Promise<void>;
}

export function jobPoliteness(
  settings: Pick<ProjectSettings, 'jobs' | 'fetch'>,
  options: { gate?: OriginGate; now?: () => number; fetchRobots?: RobotsFetcher } = {},
): JobPoliteness {
  const now = options.now ?? Date.now;
  const gate =
    options.gate ?? createMemoryOriginGate({ concurrency: settings.jobs.perOriginConcurrency, minDelayMs: settings.jobs.minDelayMs, now });
  const robots =
    settings.jobs.robots === 'ignore'
      ? undefined
      : createRobotsRules({
          now,
          fetchRobots:
            options.fetchRobots ??
            createRobotsFetcher({ allowPrivateNetworks: settings.fetch.allowPrivateNetworks, timeoutMs: settings.fetch.timeoutMs }),
        });
  return {
    gate,
    forEndpoint(config) {
      if (!config) return undefined;
      const urlOf = (values: Record<string, string>) => {
        try {
          return resolveSourceUrl(config, values);
        } catch {
          // Variables that do not fit fail in the retrieval with their own words; there is no page to be polite to.
          return undefined;
        }
      };
      return { urlOf, gate, ...(robots ? { robots } : {}) };
    },
    close: () => gate.close(),
  };
}
