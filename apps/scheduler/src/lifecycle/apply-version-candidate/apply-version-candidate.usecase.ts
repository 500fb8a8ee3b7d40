import { ApplyResult, CONVERGE_NULLS_ACTION, LifecycleApplier } from '@ostore/s3/core/lifecycle';
import type { VersionCandidate } from '@ostore/queue/contracts';
import type { ContextLogger } from '@ostore/shared/observability';
import { RetryableFailure } from '../candidate-failure';
import { LifecycleMetrics } from '../lifecycle.metrics';
import { isRetryable } from '../retry';

/** The S3 action names a candidate may suggest map onto the metric labels as they are. */
const suggestedAction = (v: VersionCandidate['versions'][number]) => v.rules[0]?.action ?? 'Expiration';

/**
 * One VersionCandidate: each eligible version it names is decided again and applied by the
 * LifecycleApplier (one LWT-guarded action per version), counted and logged. A candidate with
 * `staleNulls` first has the key's stale null rows converged (action `ConvergeNulls`), in any
 * bucket, with lifecycle rules or without.
 *
 * Errors: a retryable one (Cassandra unavailable, timeouts) is thrown as RetryableFailure and the
 * whole candidate is tried again — the versions already handled are simply found not due any
 * more. Any other error fails that version only: counted as an apply failure, logged, and the
 * remaining versions still run (the next scan finds the version again if it is still due).
 *
 * A key that stayed claimed through all of the applier's attempts ('contended') is retried too,
 * not passed over: live claimants hold a key for milliseconds, so a lasting claim is one a
 * crashed scheduler left behind, and it expires with its TTL (SCHEDULER_CLAIM_TTL_SECONDS). The
 * partition waits that long at most, and the candidate is applied after a crash instead of
 * being dropped until the next scan.
 */
export class ApplyVersionCandidate {
  constructor(
    private readonly applier: LifecycleApplier,
    private readonly metrics: LifecycleMetrics,
    private readonly log: ContextLogger,
  ) {}

  keyOf(c: VersionCandidate): string {
    return `${c.bucketId}/${c.key}`;
  }

  async execute(c: VersionCandidate): Promise<void> {
    if (c.staleNulls) await this.convergeNulls(c);
    for (const v of c.versions) {
      const suggested = suggestedAction(v);
      const fields = { bucket: c.bucket, key: c.key, versionId: v.versionId, sourceHost: c.sourceHost };
      const started = process.hrtime.bigint();
      let result: ApplyResult;
      try {
        result = await this.applier.applyVersion({ bucketId: c.bucketId, bucket: c.bucket, key: c.key, versionId: v.versionId });
      } catch (err) {
        if (isRetryable(err)) throw new RetryableFailure(suggested, err);
        this.metrics.failures.inc({ action: suggested });
        this.log.error('lifecycle action failed', { ...fields, action: suggested, rule: v.rules[0]?.ruleId, outcome: 'failed', err });
        continue;
      }
      if (result.reason === 'contended')
        throw new RetryableFailure(result.s3Action ?? suggested, new Error(`${c.bucket}/${c.key} stays claimed by another writer`));
      const action = result.s3Action ?? suggested;
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      record(this.metrics, this.log, action, result, seconds, {
        ...fields,
        rule: result.ruleId ?? v.rules[0]?.ruleId,
      });
    }
  }

  /** The key's stale null rows: errors as for a version (retryable ones retry the whole candidate). */
  private async convergeNulls(c: VersionCandidate): Promise<void> {
    const action = CONVERGE_NULLS_ACTION;
    const fields = { bucket: c.bucket, key: c.key, sourceHost: c.sourceHost };
    const started = process.hrtime.bigint();
    let result: ApplyResult;
    try {
      result = await this.applier.convergeStaleNulls({ bucketId: c.bucketId, bucket: c.bucket, key: c.key });
    } catch (err) {
      if (isRetryable(err)) throw new RetryableFailure(action, err);
      this.metrics.failures.inc({ action });
      this.log.error('lifecycle action failed', { ...fields, action, outcome: 'failed', err });
      return;
    }
    if (result.reason === 'contended') throw new RetryableFailure(action, new Error(`${c.bucket}/${c.key} stays claimed by another writer`));
    record(this.metrics, this.log, action, result, Number(process.hrtime.bigint() - started) / 1e9, fields);
  }
}

/** Counts and logs one outcome (shared by both candidate kinds). */
export function record(
  metrics: LifecycleMetrics,
  log: ContextLogger,
  action: string,
  result: ApplyResult,
  seconds: number,
  fields: Record<string, unknown>,
): void {
  metrics.duration.observe({ action }, seconds);
  const line = {
    ...fields,
    action,
    outcome: result.outcome,
    ...(result.reason ? { reason: result.reason } : {}),
    ...(result.storageClass ? { storageClass: result.storageClass } : {}),
    ...(result.markerVersionId ? { markerVersionId: result.markerVersionId } : {}),
    durationMs: Math.round(seconds * 1000),
  };
  if (result.outcome === 'applied') {
    metrics.applied.inc({ action });
    log.info('lifecycle action applied', line);
  } else {
    metrics.skipped.inc({ action, reason: result.reason ?? 'unknown' });
    log.info('lifecycle action skipped', line);
  }
}
