import type { AddRequestsBatchedResult, IRequestManager, Request, RequestQueueOperationInfo, RequestsLike, Source } from '@crawlee/cheerio';

/**
 * A request manager for a crawler that answers one URL at a time (Crawlee's public `requestManager` option).
 * Crawlee's default request queue is built for crawls that survive restarts: every add, fetch and "handled"
 * goes through a storage client that validates its input with schemas, locks the queue head, keeps a
 * dedup table and keeps every request ever seen; on the bench page that was about a third of a fetch's CPU,
 * and a daemon had to sweep handled requests out of it to keep its memory flat. Here a pending fetch is a
 * FIFO entry, an in-progress one a set member, and a handled one is forgotten. Retries still go through
 * the crawler (it reclaims the request, which puts it back in front of the line).
 */
export interface MemoryRequestManager extends IRequestManager {
  readonly kind: 'pagejson-memory';
  /** Queues one request and returns it (the crawler's own `addRequests` path validates and batches). */
  add(options: { url: string; uniqueKey: string; userData: Record<string, unknown> }): Request;
  /** Requests queued or being processed (for tests: handled ones must not stay). */
  size(): number;
}

type RequestClass = new (options: { url: string; uniqueKey?: string; userData?: Record<string, unknown> }) => Request;

function operationInfo(request: Request, forefront: boolean): RequestQueueOperationInfo {
  return { requestId: request.id ?? request.uniqueKey, uniqueKey: request.uniqueKey, wasAlreadyPresent: false, wasAlreadyHandled: false, forefront };
}

export function isMemoryRequestManager(value: unknown): value is MemoryRequestManager {
  return (value as Partial<MemoryRequestManager> | undefined)?.kind === 'pagejson-memory';
}

export function createMemoryRequestManager(RequestCtor: RequestClass): MemoryRequestManager {
  const waiting: Request[] = [];
  const inProgress = new Set<Request>();
  let handled = 0;
  let sequence = 0;

  function add(options: { url: string; uniqueKey: string; userData: Record<string, unknown> }): Request {
    const request = new RequestCtor(options);
    // Crawlee's queues assign ids; the crawler uses them for statistics and log lines.
    request.id ??= `pj${(sequence += 1).toString(36)}`;
    waiting.push(request);
    return request;
  }

  function toRequest(source: Source | string): Request {
    if (source instanceof RequestCtor) {
      source.id ??= `pj${(sequence += 1).toString(36)}`;
      waiting.push(source);
      return source;
    }
    const options = typeof source === 'string' ? { url: source } : (source as { url: string; uniqueKey?: string; userData?: Record<string, unknown> });
    return add({ url: options.url, uniqueKey: options.uniqueKey ?? `${options.url}#${sequence + 1}`, userData: options.userData ?? {} });
  }

  const manager: MemoryRequestManager = {
    kind: 'pagejson-memory',
    add,
    size: () => waiting.length + inProgress.size,
    isFinished: () => Promise.resolve(waiting.length === 0 && inProgress.size === 0),
    isEmpty: () => Promise.resolve(waiting.length === 0),
    handledCount: () => Promise.resolve(handled),
    getTotalCount: () => handled + waiting.length + inProgress.size,
    getPendingCount: () => waiting.length + inProgress.size,
    fetchNextRequest: <T>() => {
      const request = waiting.shift() ?? null;
      if (request) inProgress.add(request);
      return Promise.resolve(request as T | null) as never;
    },
    async *[Symbol.asyncIterator]() {
      for (let request = waiting.shift(); request; request = waiting.shift()) {
        inProgress.add(request);
        yield request;
      }
    },
    markRequestHandled: (request) => {
      inProgress.delete(request);
      handled += 1;
      request.handledAt ??= new Date().toISOString();
      return Promise.resolve(operationInfo(request, false));
    },
    reclaimRequest: (request, options) => {
      inProgress.delete(request);
      // A retry goes first: its fetch has been waiting longest and its deadline is running.
      if (options?.forefront === false) waiting.push(request);
      else waiting.unshift(request);
      return Promise.resolve(operationInfo(request, options?.forefront !== false));
    },
    addRequest: (source, options) => Promise.resolve(operationInfo(toRequest(source), options?.forefront ?? false)),
    addRequestsBatched: async (sources: RequestsLike): Promise<AddRequestsBatchedResult> => {
      const addedRequests = [];
      for await (const source of sources) {
        const request = toRequest(source);
        addedRequests.push({ requestId: request.id!, uniqueKey: request.uniqueKey, wasAlreadyPresent: false, wasAlreadyHandled: false });
      }
      return { addedRequests, waitForAllRequestsToBeAdded: Promise.resolve([]) };
    },
  };
  return manager;
}
