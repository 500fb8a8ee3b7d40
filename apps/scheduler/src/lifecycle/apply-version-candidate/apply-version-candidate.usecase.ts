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
    const key = { bucket: c.bucket, key: c.key, sourceHost: c.sourceHost };
    if (c.staleNulls)
      await this.attempt(c, CONVERGE_NULLS_ACTION, key, undefined, () =>
        this.applier.convergeStaleNulls({ bucketId: c.bucketId, bucket: c.bucket, key: c.key }),
      );
    for (const v of c.versions) {
      await this.attempt(c, suggestedAction(v), { ...key, versionId: v.versionId }, v.rules[0]?.ruleId, () =>
        this.applier.applyVersion({ bucketId: c.bucketId, bucket: c.bucket, key: c.key, versionId: v.versionId }),
      );
    }
  }

  /**
   * One action of the candidate (a version's, or the key's null convergence): a retryable error
   * or a lasting claim retries the whole candidate; any other error fails this action only.
   */
  private async attempt(
    c: VersionCandidate,
    suggested: string,
    fields: Record<string, unknown>,
    rule: string | undefined,
    apply: () => Promise<ApplyResult>,
  ): Promise<void> {
    const started = process.hrtime.bigint();
    let result: ApplyResult;
    try {
      result = await apply();
    } catch (err) {
      if (isRetryable(err)) throw new RetryableFailure(suggested, err);
      this.metrics.failures.inc({ action: suggested });
      this.log.error('lifecycle action failed', { ...fields, action: suggested, rule, outcome: 'failed', err });
      return;
    }
    if (result.reason === 'contended')
      throw new RetryableFailure(result.s3Action ?? suggested, new Error(`${c.bucket}/${c.key} stays claimed by another writer`));
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    record(this.metrics, this.log, result.s3Action ?? suggested, result, seconds, { ...fields, rule: result.ruleId ?? rule });
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
