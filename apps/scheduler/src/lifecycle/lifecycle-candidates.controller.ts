import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { UploadCandidate, VersionCandidate } from '@ostore/queue/contracts';
import { BatchHandler, QueueBatch, QueueHandler } from '@ostore/queue/data-access';
import { AbortUploadCandidate } from './abort-upload-candidate/abort-upload-candidate.usecase';
import { ApplyVersionCandidate } from './apply-version-candidate/apply-version-candidate.usecase';
import { CandidateBatchRunner } from './candidate-batch.runner';

/**
 * The scheduler's consumers: the `versions` and `uploads` candidate queues, as handlers on the
 * queue transport (QueueTransport, started by main.ts through runApp). The transport owns the
 * partitions (each read by at most one scheduler of the group), commits and rate limits; the
 * CandidateBatchRunner runs a batch's candidates (distinct keys concurrently, one key in offset
 * order) through the use cases, which decide again and apply under LWT.
 *
 * Another queue is another method here or in a new controller listed in AppModule's
 * `controllers`: `@QueueHandler('<queue>') handle(@Payload() batch: QueueBatch)` returning
 * `this.runner.handler(kind)(batch)` for a CandidateKind of that queue's contract and use case.
 */
@Controller()
export class LifecycleCandidatesController {
  private readonly versionBatch: BatchHandler;
  private readonly uploadBatch: BatchHandler;

  constructor(
    @Inject(CandidateBatchRunner) runner: CandidateBatchRunner,
    @Inject(ApplyVersionCandidate) versions: ApplyVersionCandidate,
    @Inject(AbortUploadCandidate) uploads: AbortUploadCandidate,
  ) {
    this.versionBatch = runner.handler({
      queue: 'versions',
      contract: VersionCandidate,
      keyOf: (c) => versions.keyOf(c),
      execute: (c) => versions.execute(c),
    });
    this.uploadBatch = runner.handler({
      queue: 'uploads',
      contract: UploadCandidate,
      keyOf: (c) => uploads.keyOf(c),
      execute: (c) => uploads.execute(c),
    });
  }

  @QueueHandler('versions')
  versions(@Payload() batch: QueueBatch): Promise<void> {
    return this.versionBatch(batch);
  }

  @QueueHandler('uploads')
  uploads(@Payload() batch: QueueBatch): Promise<void> {
    return this.uploadBatch(batch);
  }
}
