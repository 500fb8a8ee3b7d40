import { ApplyResult, LifecycleApplier } from '@ostore/s3/core/lifecycle';
import type { UploadCandidate } from '@ostore/queue/contracts';
import type { ContextLogger } from '@ostore/shared/observability';
import { record } from '../apply-version-candidate/apply-version-candidate.usecase';
import { RetryableFailure } from '../candidate-failure';
import { LifecycleMetrics } from '../lifecycle.metrics';
import { isRetryable } from '../retry';

const ACTION = 'AbortIncompleteMultipartUpload';

/**
 * One UploadCandidate: the upload is re-checked (still there, still incomplete, due under the
 * bucket's current rules) and aborted exactly like AbortMultipartUpload. Errors as in
 * ApplyVersionCandidate: retryable ones are thrown, others counted, logged and passed over.
 */
export class AbortUploadCandidate {
  constructor(
    private readonly applier: LifecycleApplier,
    private readonly metrics: LifecycleMetrics,
    private readonly log: ContextLogger,
  ) {}

  keyOf(c: UploadCandidate): string {
    return `${c.bucketId}/${c.key}`;
  }

  async execute(c: UploadCandidate): Promise<void> {
    const fields = { bucket: c.bucket, key: c.key, uploadId: c.uploadId, rule: c.ruleId };
    const started = process.hrtime.bigint();
    let result: ApplyResult;
    try {
      result = await this.applier.applyUpload({ bucketId: c.bucketId, bucket: c.bucket, key: c.key, uploadId: c.uploadId });
    } catch (err) {
      if (isRetryable(err)) throw new RetryableFailure(ACTION, err);
      this.metrics.failures.inc({ action: ACTION });
      this.log.error('lifecycle action failed', { ...fields, action: ACTION, outcome: 'failed', err });
      return;
    }
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    record(this.metrics, this.log, ACTION, result, seconds, { ...fields, rule: result.ruleId ?? c.ruleId });
  }
}
