import { randomUUID } from 'node:crypto';
import { Configuration, HttpCrawler, log, LogLevel } from '@crawlee/http';

/**
 * The floor under scraper 2: Crawlee alone, used the way its documentation shows for a long-running service
 * (one keepAlive HttpCrawler, a request added per fetch, the body handed over by the request handler), with
 * its defaults: the memory request queue, a session pool with generated browser headers, got-scraping. No
 * pagejson code runs in it; the page is then parsed and selected like every other path of the figure.
 */
export interface CrawleeFloor {
  fetch(url: string): Promise<string>;
  close(): Promise<void>;
}

export async function startCrawleeFloor(): Promise<CrawleeFloor> {
  log.setLevel(LogLevel.OFF);
  const waiting = new Map<string, { resolve: (html: string) => void; reject: (error: Error) => void }>();
  const crawler = new HttpCrawler(
    {
      keepAlive: true,
      maxConcurrency: 4,
      maxRequestRetries: 2,
      requestHandler: async ({ request, body }) => {
        waiting.get(request.uniqueKey)?.resolve(typeof body === 'string' ? body : body.toString('utf8'));
      },
      failedRequestHandler: async ({ request }, error) => {
        waiting.get(request.uniqueKey)?.reject(error);
      },
    },
    new Configuration({ persistStorage: false, purgeOnStart: false, logLevel: LogLevel.OFF }),
  );
  const running = crawler.run();
  return {
    async fetch(url) {
      const uniqueKey = randomUUID();
      const answer = new Promise<string>((resolve, reject) => waiting.set(uniqueKey, { resolve, reject }));
      try {
        await crawler.addRequests([{ url, uniqueKey }]);
        return await answer;
      } finally {
        waiting.delete(uniqueKey);
      }
    },
    async close() {
      await crawler.teardown();
      await running.catch(() => undefined);
    },
  };
}
