import { Aggregator, CollectFunction, collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The app's Prometheus registry: process metrics plus the app's own. Metric names carry their
 * unit (`_seconds`, `_bytes`, `_total`) and the `ostore_` prefix.
 */
export class MetricsRegistry {
  readonly registry = new Registry();

  constructor(app: string, collectDefaults = true) {
    this.registry.setDefaultLabels({ app });
    if (collectDefaults) collectDefaultMetrics({ register: this.registry });
  }

  counter<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
    return (
      (this.registry.getSingleMetric(name) as Counter<L>) ??
      new Counter({ name, help, labelNames, registers: [this.registry] })
    );
  }

  /** A gauge; `options.collect` sets it at each scrape, `options.aggregator` merges node:cluster workers' values (default sum). */
  gauge<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
    options: { collect?: CollectFunction<Gauge<L>>; aggregator?: Aggregator } = {},
  ): Gauge<L> {
    return (
      (this.registry.getSingleMetric(name) as Gauge<L>) ??
      new Gauge({ name, help, labelNames, registers: [this.registry], ...options })
    );
  }

  histogram<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[] = [],
    buckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  ): Histogram<L> {
    return (
      (this.registry.getSingleMetric(name) as Histogram<L>) ??
      new Histogram({ name, help, labelNames, buckets, registers: [this.registry] })
    );
  }

  contentType(): string {
    return this.registry.contentType;
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }
}
