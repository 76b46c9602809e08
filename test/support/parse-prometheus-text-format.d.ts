// parse-prometheus-text-format ships no type declarations: the shape of its result (prom2json's).
declare module 'parse-prometheus-text-format' {
  export interface Sample { value?: string; labels?: Record<string, string>; buckets?: Record<string, string>; count?: string; sum?: string }
  export interface MetricFamily { name: string; help: string; type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED'; metrics: Sample[] }
  export default function parsePrometheusTextFormat(text: string): MetricFamily[];
}
