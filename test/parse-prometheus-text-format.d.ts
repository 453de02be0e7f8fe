// parse-prometheus-text-format ships no types: what test/prometheus-text.ts reads of its answer.
declare module 'parse-prometheus-text-format' {
  export default function parsePrometheusTextFormat(text: string): { name: string; help: string; type: string; metrics: unknown[] }[];
}
