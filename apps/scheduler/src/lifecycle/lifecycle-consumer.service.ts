import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { UploadCandidate, VersionCandidate } from '@ostore/queue/contracts';
import { QueueConsumer, QueueSubscription, SubscribeOptions } from '@ostore/queue/data-access';
import { JsonLogger } from '@ostore/shared/observability';
import { AbortUploadCandidate } from './abort-upload-candidate/abort-upload-candidate.usecase';
import { ApplyVersionCandidate } from './apply-version-candidate/apply-version-candidate.usecase';
import { CandidateBatchRunner } from './candidate-batch.runner';

/** Subscription options of both candidate queues (token: the app module provides them). */
export const CANDIDATE_SUBSCRIBE_OPTIONS = Symbol('CANDIDATE_SUBSCRIBE_OPTIONS');

/**
 * Joins the `scheduler` group of the `versions` and `uploads` queues at bootstrap (each partition
 * is read by at most one scheduler; the queue library guarantees it). Stopping is the queue
 * module's: before the clients close, the consumer stops taking batches, lets running ones drain
 * and hands the rest back (see QueueModule).
 */
@Injectable()
export class LifecycleConsumer implements OnApplicationBootstrap {
  private readonly subscriptions: QueueSubscription[] = [];

  constructor(
    @Inject(QueueConsumer) private readonly consumer: QueueConsumer,
    @Inject(CandidateBatchRunner) private readonly runner: CandidateBatchRunner,
    @Inject(ApplyVersionCandidate) private readonly versions: ApplyVersionCandidate,
    @Inject(AbortUploadCandidate) private readonly uploads: AbortUploadCandidate,
    @Inject(CANDIDATE_SUBSCRIBE_OPTIONS) private readonly options: SubscribeOptions,
    @Inject(JsonLogger) private readonly logger: JsonLogger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const versions = this.runner.handler({
      queue: 'versions',
      contract: VersionCandidate,
      keyOf: (c) => this.versions.keyOf(c),
      execute: (c) => this.versions.execute(c),
    });
    const uploads = this.runner.handler({
      queue: 'uploads',
      contract: UploadCandidate,
      keyOf: (c) => this.uploads.keyOf(c),
      execute: (c) => this.uploads.execute(c),
    });
    this.subscriptions.push(await this.consumer.subscribe('versions', versions, this.options));
    this.subscriptions.push(await this.consumer.subscribe('uploads', uploads, this.options));
    this.logger.forContext(LifecycleConsumer.name).info('consuming lifecycle candidates', {
      queues: this.subscriptions.map((s) => s.queue),
      ...this.options,
    });
  }
}
