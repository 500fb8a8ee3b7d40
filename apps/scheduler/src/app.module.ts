import { DynamicModule, Module, Provider } from '@nestjs/common';
import { resolve } from 'path';
import { lifecycleTiming } from '@ostore/lifecycle/rules';
import { ClockModule } from '@ostore/shared/clock';
import { CassandraModule } from '@ostore/shared/cassandra';
import {
  KafkaModule,
  QueueModule,
  QueueModuleOptions,
  QueueTransport,
  UsageDeltaModule,
  UsageDeltaPublisher,
} from '@ostore/queue/data-access';
import { JsonLogger, MetricsRegistry, ObservabilityModule } from '@ostore/shared/observability';
import { BlockStorageModule } from '@ostore/storage/blocks';
import { S3CoreModule } from '@ostore/s3/core';
import { LifecycleApplier, S3LifecycleModule } from '@ostore/s3/core/lifecycle';
import { SchedulerConfig } from './config/scheduler.config';
import { FoldersModule } from './folders/folders.module';
import { AbortUploadCandidate } from './lifecycle/abort-upload-candidate/abort-upload-candidate.usecase';
import { ApplyVersionCandidate } from './lifecycle/apply-version-candidate/apply-version-candidate.usecase';
import { CandidateBatchRunner } from './lifecycle/candidate-batch.runner';
import { LifecycleCandidatesController } from './lifecycle/lifecycle-candidates.controller';
import { LifecycleMetrics } from './lifecycle/lifecycle.metrics';

/** The queue backend of the configuration (QUEUE_BACKEND), both consuming as group `scheduler`. */
export function queueOptions(config: SchedulerConfig): QueueModuleOptions {
  const { group, sessionTimeoutMs, drainTimeoutMs } = config.queue;
  // heartbeats (Kafka) and lease renewals (Cassandra) at most a third of the session apart
  const heartbeatMs = Math.min(3000, Math.floor(sessionTimeoutMs / 3));
  if (config.queue.backend === 'kafka')
    return {
      backend: 'kafka',
      consumer: { group, drainTimeoutMs, sessionTimeoutMs, rebalanceTimeoutMs: sessionTimeoutMs, heartbeatIntervalMs: heartbeatMs },
    };
  return {
    backend: 'cassandra',
    cassandra: { cluster: config.cluster, partitions: config.kafka.partitions },
    consumer: { group, drainTimeoutMs, leaseTtlSeconds: Math.ceil(sessionTimeoutMs / 1000), heartbeatMs },
  };
}

@Module({})
export class AppModule {
  static register(config: SchedulerConfig, deps: { logger: JsonLogger; metrics: MetricsRegistry }): DynamicModule {
    // The gateway's block store: the scheduler releases blocks and copies them to the cold tier.
    // No GC here (gcIntervalMs unset): the gateways run it.
    const blocks = BlockStorageModule.forRoot({
      store: config.blocks.store,
      fsRoot: resolve(config.blocks.dir),
      fsDirectIo: config.blocks.fsDirectIo,
      cold: { fsRoot: resolve(config.blocks.coldDir) },
      blockSize: config.blocks.blockSize,
      inFlightTtlSeconds: config.blocks.inFlightTtlSeconds,
      gcGraceMs: config.blocks.gcGraceMs,
    });
    // Lifecycle deletions and aborts release bytes: their usage deltas go to s3-<cluster>-usage.
    const usage = UsageDeltaModule.fromConfig('scheduler', config.usage, config.shutdownTimeoutMs);
    const core = S3CoreModule.forRoot({
      imports: usage ? [blocks, usage] : [blocks],
      usageRecorder: usage ? UsageDeltaPublisher : undefined,
    });
    const lifecycle = S3LifecycleModule.forRoot({
      imports: [core, blocks],
      settings: {
        timing: lifecycleTiming(config.scheduler.debugDaySeconds),
        maxVersions: config.scheduler.maxVersions,
        claimTtlSeconds: config.scheduler.claimTtlSeconds,
      },
    });
    const providers: Provider[] = [
      { provide: LifecycleMetrics, useFactory: (m: MetricsRegistry) => new LifecycleMetrics(m), inject: [MetricsRegistry] },
      {
        provide: CandidateBatchRunner,
        useFactory: (m: LifecycleMetrics, l: JsonLogger) =>
          new CandidateBatchRunner(
            {
              concurrency: config.scheduler.concurrency,
              retryAttempts: config.scheduler.retryAttempts,
              retryBackoff: { initialMs: 200, maxMs: 5000 },
            },
            m,
            l.forContext(CandidateBatchRunner.name),
          ),
        inject: [LifecycleMetrics, JsonLogger],
      },
      {
        provide: ApplyVersionCandidate,
        useFactory: (a: LifecycleApplier, m: LifecycleMetrics, l: JsonLogger) =>
          new ApplyVersionCandidate(a, m, l.forContext(ApplyVersionCandidate.name)),
        inject: [LifecycleApplier, LifecycleMetrics, JsonLogger],
      },
      {
        provide: AbortUploadCandidate,
        useFactory: (a: LifecycleApplier, m: LifecycleMetrics, l: JsonLogger) =>
          new AbortUploadCandidate(a, m, l.forContext(AbortUploadCandidate.name)),
        inject: [LifecycleApplier, LifecycleMetrics, JsonLogger],
      },
      // The candidate queues' handlers (LifecycleCandidatesController) subscribe through it.
      QueueTransport.provider({
        defaults: {
          maxBatchSize: config.scheduler.batchSize,
          ratePerPartition: config.scheduler.ratePerPartition,
          concurrency: config.scheduler.partitionConcurrency,
        },
      }),
    ];
    return {
      module: AppModule,
      imports: [
        ObservabilityModule.forRoot({ app: config.app, ...deps }),
        ClockModule,
        CassandraModule.forRoot(config.cassandra),
        // Kafka only when it carries the queues or the usage deltas: with QUEUE_BACKEND=cassandra
        // and USAGE_DELTAS=off it need not exist.
        ...(config.queue.backend === 'kafka' || config.usage.mode === 'kafka' ? [KafkaModule.forRoot(config.kafka)] : []),
        QueueModule.forRoot(queueOptions(config)),
        core,
        lifecycle,
        FoldersModule.register(config),
      ],
      controllers: [LifecycleCandidatesController],
      providers,
    };
  }
}
