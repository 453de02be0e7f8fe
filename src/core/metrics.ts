/**
 * What the layers below the features record for GET /metrics (modules/metrics/ keeps the
 * instruments and answers the scrape). `deps.metrics` is absent while metrics are off, so a
 * search, a job or a refusal then costs one property read, and prom-client is never loaded.
 */
export interface MetricsRecorder {
  /** A page of the search answered, by the strategy that answered it (search/plan.ts), and its time. */
  searched(strategy: string, seconds: number): void;
  /** A background job that ended here (done or failed), and how long this process worked on it. */
  jobEnded(kind: string, failed: boolean, seconds: number): void;
  /** An upload stored (published or held): its kind, and the bytes of its original, thumbnail and preview. */
  uploaded(kind: string, bytes: number): void;
  /** A request the rate-limit hook refused (429), by its route pattern. */
  rateLimited(route: string): void;
}
