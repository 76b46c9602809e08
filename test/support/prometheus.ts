/** Scrapes /metrics and parses it with an independent Prometheus text-format parser (parse-prometheus-text-format). */
import { expect } from 'chai';
import parsePrometheusTextFormat, { type MetricFamily } from 'parse-prometheus-text-format';

export class Scrape {
  /** The families as typed by the exposition (HISTOGRAM, COUNTER, ...). */
  readonly families: MetricFamily[];
  /**
   * Every sample with its labels. The parser folds the series of a labelled histogram into one
   * entry without labels (prom2json's shape for an unlabelled one), so for this view the TYPE
   * lines of histograms are dropped: `_bucket`, `_sum` and `_count` then parse as series of their own.
   */
  private readonly series: MetricFamily[];

  constructor(text: string) {
    this.families = parsePrometheusTextFormat(text);
    this.series = parsePrometheusTextFormat(text.replace(/^# TYPE \S+ histogram$/gm, ''));
  }

  family(name: string): MetricFamily | undefined {
    return this.families.find((family) => family.name === name);
  }

  /** Every sample named `name` (a histogram's `name_bucket`, `name_sum` and `name_count` included), with its labels. */
  samples(name: string): { labels: Record<string, string>; value: number }[] {
    // A histogram's series interleave (buckets, sum, count per label set): a name recurs.
    return this.series.filter((family) => family.name === name).flatMap((family) => family.metrics)
      .map((sample) => ({ labels: sample.labels ?? {}, value: Number(sample.value ?? 0) }));
  }

  /** Sum of the samples of `name` whose labels include `labels`; 0 when none. A histogram's `name_count` counts its observations. */
  value(name: string, labels: Record<string, string> = {}): number {
    return this.samples(name)
      .filter((sample) => Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
      .reduce((sum, sample) => sum + sample.value, 0);
  }
}

export async function scrape(url: string, headers: Record<string, string> = {}): Promise<Scrape> {
  const response = await fetch(url, { headers });
  const text = await response.text();
  expect(response.status, text.slice(0, 200)).to.equal(200);
  expect(response.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
  return new Scrape(text);
}
