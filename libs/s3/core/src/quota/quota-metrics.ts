import type { LedgerUsage } from '@ostore/metastore/data-access';
import type { MetricsRegistry } from '@ostore/shared/observability';
import type { QuotaLimits } from './quota-limits';

/** What the quota guard reports; `QuotaMetrics` turns it into Prometheus metrics. */
export interface QuotaMetricsSink {
  checked(result: 'admitted' | 'refused'): void;
  ledgerWriteFailed(): void;
  /** A fresh ledger read of a quota bucket (sets its utilisation). */
  observed(bucket: string, limits: QuotaLimits, usage: LedgerUsage): void;
  /** A recount found the ledger off by this much (ledger − exact) before re-basing it. */
  drift(bucket: string, drift: LedgerUsage): void;
}

/** Reports nothing (tools and tests without a registry). */
export class NoopQuotaMetrics implements QuotaMetricsSink {
  checked(): void {}
  ledgerWriteFailed(): void {}
  observed(): void {}
  drift(): void {}
}

/**
 * The quota metrics of a gateway (and the scheduler's ledger writes). The per-bucket series exist
 * only for buckets with a quota, set at each ledger read: admissions, admin usage reads, and the
 * guard's periodic re-read of the quota buckets it wrote recently; with several gateways take
 * `max by (bucket, resource)`.
 */
export class QuotaMetrics implements QuotaMetricsSink {
  private readonly checks;
  private readonly ledgerErrors;
  private readonly gauges;
  private readonly utilisation;

  constructor(registry: MetricsRegistry) {
    this.checks = registry.counter('ostore_quota_checks_total', 'Admission checks of writes to quota buckets, by result (admitted, refused)', ['result']);
    this.ledgerErrors = registry.counter('ostore_quota_ledger_write_errors_total', 'Quota ledger updates that failed (never retried; recount the bucket)');
    const gauge = (name: string, help: string) => registry.gauge(name, help, ['bucket']);
    this.gauges = {
      bytes: {
        used: gauge('ostore_bucket_quota_used_bytes', 'Bytes a quota bucket holds, as its quota ledger says'),
        limit: gauge('ostore_bucket_quota_limit_bytes', 'The byte quota of a bucket'),
        drift: gauge('ostore_quota_ledger_drift_bytes', 'Ledger minus exact recount, in bytes, at the last re-base of a bucket'),
      },
      objects: {
        used: gauge('ostore_bucket_quota_used_objects', 'Objects (versions holding data) a quota bucket holds, as its quota ledger says'),
        limit: gauge('ostore_bucket_quota_limit_objects', 'The object quota of a bucket'),
        drift: gauge('ostore_quota_ledger_drift_objects', 'Ledger minus exact recount, in objects, at the last re-base of a bucket'),
      },
    };
    this.utilisation = registry.gauge('ostore_bucket_quota_utilisation_ratio', 'Used / limit of a quota bucket (above 1 after an overshoot), by resource (bytes, objects)', ['bucket', 'resource']);
  }

  checked(result: 'admitted' | 'refused'): void {
    this.checks.inc({ result });
  }

  ledgerWriteFailed(): void {
    this.ledgerErrors.inc();
  }

  observed(bucket: string, limits: QuotaLimits, usage: LedgerUsage): void {
    for (const [resource, max, value] of [
      ['bytes', limits.maxBytes, usage.bytes],
      ['objects', limits.maxObjects, usage.objects],
    ] as const) {
      if (max === undefined) continue;
      this.gauges[resource].used.set({ bucket }, value);
      this.gauges[resource].limit.set({ bucket }, max);
      this.utilisation.set({ bucket, resource }, max > 0 ? value / max : value > 0 ? Infinity : 0);
    }
  }

  drift(bucket: string, drift: LedgerUsage): void {
    this.gauges.bytes.drift.set({ bucket }, drift.bytes);
    this.gauges.objects.drift.set({ bucket }, drift.objects);
  }
}
