import { DeleteOutcome, EmptyFolderApplier } from '@ostore/folders/apply';
import type { FolderCandidate } from '@ostore/queue/contracts';
import type { ContextLogger } from '@ostore/shared/observability';
import { RetryableFailure } from '../../lifecycle/candidate-failure';
import { isRetryable } from '../../lifecycle/retry';
import { FolderCleanupMetrics } from '../folder-cleanup.metrics';

const ACTION = 'DeleteEmptyFolder';

/**
 * One FolderCandidate from a folder queue: decided again and deleted by EmptyFolderApplier
 * (@ostore/folders/apply: re-check under a SERIAL read, timestamped delete, check after), counted
 * and logged. Errors as in the lifecycle use cases: retryable ones are thrown (the batch runner
 * retries and then hands the batch back), others counted, logged and passed over.
 */
export class DeleteEmptyFolder {
  constructor(
    private readonly applier: EmptyFolderApplier,
    private readonly metrics: FolderCleanupMetrics,
    private readonly log: ContextLogger,
  ) {}

  keyOf(c: FolderCandidate): string {
    return `${c.kind}/${c.bucketId}/${c.parent}${c.name}`;
  }

  async execute(c: FolderCandidate): Promise<DeleteOutcome | undefined> {
    const started = performance.now();
    let outcome: DeleteOutcome;
    try {
      outcome = await this.applier.apply(c);
    } catch (err) {
      if (isRetryable(err)) throw new RetryableFailure(ACTION, err);
      this.metrics.failures.inc({ kind: c.kind });
      this.log.error('empty-directory cleanup failed', { bucket: c.bucket, kind: c.kind, directory: c.parent + c.name, err });
      return undefined;
    }
    this.metrics.duration.observe({ kind: c.kind }, (performance.now() - started) / 1000);
    if (outcome === 'deleted') this.metrics.deleted.inc({ kind: c.kind });
    else this.metrics.skipped.inc({ kind: c.kind, reason: outcome });
    if (outcome === 'deleted' || outcome === 'raced')
      this.log.info(outcome === 'deleted' ? 'empty directory deleted' : 'directory filled during its deletion; row restored', {
        bucket: c.bucket,
        kind: c.kind,
        directory: c.parent + c.name,
      });
    return outcome;
  }
}
