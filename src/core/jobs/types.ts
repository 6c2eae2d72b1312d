/**
 * Jobs (docs/jobs.md): one saved endpoint over many inputs. The names here are the public contract: the
 * states, the counts and the fields of a results line.
 */
export type JobState = 'queued' | 'running' | 'done' | 'failed' | 'cancelled';

export const FINISHED_STATES: ReadonlySet<JobState> = new Set(['done', 'failed', 'cancelled']);

/** Where a job's inputs come from: exactly one of these. */
export type JobSource =
  | { kind: 'inputs'; inputs: Record<string, string>[] }
  | { kind: 'urls'; urls: string[] }
  | { kind: 'sitemap'; sitemap: string; include?: string[]; exclude?: string[] }
  | { kind: 'from'; from: { apiId: string; field: string } };

export interface JobCounts {
  total: number;
  done: number;
  failed: number;
  skipped: number;
  /** Milli-credits the job's items were charged. */
  credits: number;
}

/** One input of a job, as kept in its items file: the variables it runs with, or why it is skipped. */
export interface JobItem {
  index: number;
  /** What the caller gave: a variable set, or `{url}` for the URL sources. */
  input: Record<string, string>;
  /** The variables the endpoint runs with (absent: skipped). */
  values?: Record<string, string>;
  /** Why the input is not run (a URL that does not fit the template, a robots.txt rule). */
  skip?: { code: string; message: string };
  /** A `from` job: the list item the URL came from. */
  item?: unknown;
}

export type ItemOutcome = 'data' | 'error' | 'skipped';

/** One line of a job's results: every input ends in exactly one. */
export interface ResultLine {
  index: number;
  input: Record<string, string>;
  outcome: ItemOutcome;
  data: Record<string, unknown> | null;
  errors: Array<{ message: string; code: string }> | null;
  health: string | null;
  fetchedAt: string | null;
  /** Credits the item was charged (absent: none). */
  credits?: number;
  item?: unknown;
}

/** A job as its owner reads it (`GET /jobs/{id}`, `pagejson jobs status`). */
export interface JobRecord {
  id: string;
  apiId: string;
  state: JobState;
  counts: JobCounts;
  concurrency: number;
  webhook: boolean;
  /** The source's kind (inputs, urls, sitemap, from). */
  source: JobSource['kind'];
  /** The key the job acts for (its id, never its text); absent for a job run in the CLI's process. */
  keyId?: string;
  createdAt: string;
  startedAt?: string;
  finishedAt?: string;
  /** Why a job failed or was cancelled, in words (the no-credits message, `cancelled by its owner`). */
  reason?: string;
  /** The last time the process running the job showed it was alive (a stalled job is taken over). */
  heartbeatAt?: string;
}

/** What running one item gave. */
export interface ItemAnswer {
  data: Record<string, unknown>;
  health: string;
  fetchedAt: string;
  /** Milli-credits it was charged. */
  milliCredits: number;
}

/** One retrieval of the endpoint with these variables through the page pipeline; throws a PagejsonError on failure. */
export type ItemRetriever = (values: Record<string, string>, signal: AbortSignal) => Promise<ItemAnswer>;

export const emptyCounts = (total: number): JobCounts => ({ total, done: 0, failed: 0, skipped: 0, credits: 0 });
