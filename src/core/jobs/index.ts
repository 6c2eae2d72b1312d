export { createJobService, type JobEvent, type JobService, type JobServiceDeps, type StartJob } from './job-service.js';
export { JOB_ID_PATTERN } from './embedded-queue.js';
export { expandSource, type SourceDeps } from './job-inputs.js';
export { inputsFormatOf, parseInputs, parseUrlList } from './input-files.js';
export { runItems, RATE_LIMITED_TRIES, type ItemPoliteness, type RunEnd, type RunnerDeps } from './runner.js';
export { createMemoryOriginGate, type OriginGate, type OriginGateOptions } from './origin-gate.js';
export { createRobotsFetcher, createRobotsRules, ROBOTS_USER_AGENT, type RobotsFetcher, type RobotsRules } from './robots.js';
export { jobPoliteness, type JobPoliteness } from './job-politeness.js';
export { matchUrl } from './url-match.js';
export { reasonsOf, resultsAs, resultsPage, type JobReason, type ResultsFormat } from './results-format.js';
export {
  emptyCounts,
  FINISHED_STATES,
  type ItemAnswer,
  type ItemRetriever,
  type JobCounts,
  type JobItem,
  type JobRecord,
  type JobSource,
  type JobState,
  type ResultLine,
} from './types.js';
export { wireErrorsOf } from './item-errors.js';
export { daemonItemRetriever } from './daemon-retriever.js';
export { createSitemapFetcher } from './sitemap-fetch.js';
export { createRedisOriginGate } from './redis-origin-gate.js';
export { createRedisJobService, JOBS_QUEUE, type RedisJobServiceDeps } from './redis-job-service.js';
export { jobView, jobWebhook } from './job-view.js';
