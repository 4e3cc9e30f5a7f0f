/** The Prometheus text parser the metrics test reads /metrics with (the package ships no types). */
declare module 'parse-prometheus-text-format' {
  interface Sample {
    labels?: Record<string, string>;
    value?: string;
    count?: string;
    sum?: string;
    buckets?: Record<string, string>;
  }
  export default function parsePrometheusTextFormat(
    text: string,
  ): Array<{ name: string; help: string; type: string; metrics: Sample[] }>;
}
