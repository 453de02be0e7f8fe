import { randomBytes } from 'node:crypto';

/**
 * `npm run bench -- --metrics`: the server under test runs with METRICS on (behind a token, on its
 * own port) and is scraped as Prometheus would scrape it, so that the runs' CPU a request
 * includes what metrics cost (docs/deploy.md, Metrics): compare with a run without the flag.
 */
export const SCRAPE_EVERY_MS = 15_000;

export function metricsSettings(): { env: Record<string, string>; token: string } {
  const token = randomBytes(24).toString('base64url');
  return { env: { METRICS: 'on', METRICS_TOKEN: token }, token };
}

export interface Scraper {
  /** Stops; resolves with how many scrapes were answered 200, how many were not, and the last answer's size. */
  stop(): Promise<{ scrapes: number; failures: number; lastBytes: number }>;
}

/** GET /metrics every SCRAPE_EVERY_MS on `origin()` (read at each scrape: the bench restarts its server at times). */
export function scrapeEvery(origin: () => string, token: string): Scraper {
  let scrapes = 0;
  let failures = 0;
  let lastBytes = 0;
  let running: Promise<void> = Promise.resolve();
  const scrape = async () => {
    try {
      const res = await fetch(`${origin()}/metrics`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(10_000) });
      const text = await res.text();
      if (res.ok) {
        scrapes++;
        lastBytes = text.length;
      } else failures++;
    } catch {
      failures++;
    }
  };
  const timer = setInterval(() => {
    running = running.then(scrape);
  }, SCRAPE_EVERY_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
      return { scrapes, failures, lastBytes };
    },
  };
}
