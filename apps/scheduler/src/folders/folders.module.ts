import { DynamicModule, Module } from '@nestjs/common';
import { EmptyFolderApplier } from '@ostore/folders/apply';
import { ParentBudget } from '@ostore/folders/cleanup';
import { FolderCleanupRepository, FolderFilterRepository } from '@ostore/metastore/data-access';
import { CassandraClient } from '@ostore/shared/cassandra';
import { Clock } from '@ostore/shared/clock';
import { JsonLogger, MetricsRegistry } from '@ostore/shared/observability';
import { SchedulerConfig } from '../config/scheduler.config';
import { CandidateBatchRunner } from '../lifecycle/candidate-batch.runner';
import { LifecycleMetrics } from '../lifecycle/lifecycle.metrics';
import { DeleteEmptyFolder } from './delete-empty-folder/delete-empty-folder.usecase';
import { FOLDER_BATCH_RUNNER, FolderCandidatesController } from './folder-candidates.controller';
import { FolderCleanupMetrics } from './folder-cleanup.metrics';

/** The empty-directory cleanup of the scheduler: the folder queues' handlers and their use case (global modules give Cassandra, clock, metrics, logs). */
@Module({})
export class FoldersModule {
  static register(config: SchedulerConfig): DynamicModule {
    const f = config.folders;
    return {
      module: FoldersModule,
      controllers: [FolderCandidatesController],
      providers: [
        {
          provide: FOLDER_BATCH_RUNNER,
          useFactory: (m: MetricsRegistry, l: JsonLogger) =>
            new CandidateBatchRunner(
              { concurrency: config.scheduler.concurrency, retryAttempts: config.scheduler.retryAttempts, retryBackoff: { initialMs: 200, maxMs: 5000 } },
              new LifecycleMetrics(m),
              l.forContext(FolderCandidatesController.name),
            ),
          inject: [MetricsRegistry, JsonLogger],
        },
        {
          provide: DeleteEmptyFolder,
          useFactory: (db: CassandraClient, clock: Clock, m: MetricsRegistry, l: JsonLogger) =>
            new DeleteEmptyFolder(
              new EmptyFolderApplier(
                new FolderCleanupRepository(db),
                new ParentBudget(f.maxPerParent, f.windowMs),
                { folderCacheTtlMs: f.folderCacheTtlMs, skewMs: f.skewMs },
                clock,
                new FolderFilterRepository(db),
              ),
              new FolderCleanupMetrics(m),
              l.forContext(DeleteEmptyFolder.name),
            ),
          inject: [CassandraClient, Clock, MetricsRegistry, JsonLogger],
        },
      ],
    };
  }
}
