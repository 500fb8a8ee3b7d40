import { DynamicModule, Module } from '@nestjs/common';
import { resolve } from 'path';
import { ClockModule } from '@ostore/shared/clock';
import { CassandraClient, CassandraModule } from '@ostore/shared/cassandra';
import { defaultNewestReadGroupSettings, FolderFilterRepository } from '@ostore/metastore/data-access';
import { KafkaModule, UsageDeltaModule, UsageDeltaPublisher } from '@ostore/queue/data-access';
import { JsonLogger, MetricsRegistry, ObservabilityModule } from '@ostore/shared/observability';
import { BlockStorageModule } from '@ostore/storage/blocks';
import { defaultQuotaLedgerSettings, S3CoreModule } from '@ostore/s3/core';
import { AdminController } from './admin/admin.controller';
import { AdminTokenGuard } from './admin/admin.controller';
import { AdminListener } from './admin/admin-listener';
import { FOLDER_FILTER_REPOSITORY, FolderCleanupController } from './admin/folder-cleanup.controller';
import { BootstrapUser } from './admin/bootstrap-user';
import { BucketAdminController } from './admin/bucket-admin.controller';
import { BucketReportController, snapshotStoreProvider } from './admin/bucket-report.controller';
import { SseAdminController } from './admin/sse-admin.controller';
import { statsUsageProvider } from './admin/stats-usage.client';
import { GatewayConfig } from './config/gateway.config';
import { S3Module } from './s3/s3.module';

@Module({})
export class AppModule {
  static register(config: GatewayConfig, deps: { logger: JsonLogger; metrics: MetricsRegistry }): DynamicModule {
    const blocks = BlockStorageModule.forRoot({
      store: config.blocks.store,
      fsRoot: resolve(config.blocks.dir),
      fsDirectIo: config.blocks.fsDirectIo,
      cold: { fsRoot: resolve(config.blocks.coldDir) },
      blockSize: config.blocks.blockSize,
      readSize: config.blocks.readSize,
      writeBufferBytes: config.blocks.writeBufferBytes,
      inFlightTtlSeconds: config.blocks.inFlightTtlSeconds,
      gcGraceMs: config.blocks.gcGraceMs,
      gcIntervalMs: config.blocks.gcIntervalMs,
    });
    // PUT, multipart parts, copies and deletes change bucket sizes: deltas to s3-<cluster>-usage.
    const usage = UsageDeltaModule.fromConfig('gateway', config.usage, config.shutdownTimeoutMs);
    const core = S3CoreModule.forRoot({
      imports: usage ? [blocks, usage] : [blocks],
      usageRecorder: usage ? UsageDeltaPublisher : undefined,
      settings: {
        inlineBodyMaxBytes: config.s3.inlineBodyMaxBytes,
        rowBodyMaxBytes: config.s3.rowBodyMaxBytes,
        rowOnlyMeta: config.s3.rowOnlyMeta,
        nullConvergence: config.s3.nullConvergence,
        newestReadGroups: { ...defaultNewestReadGroupSettings, ...config.s3.readGroups },
        bucketCacheTtlMs: config.s3.bucketCacheMs,
        folderCacheTtlMs: config.s3.folderCacheMs,
        quota: { ...defaultQuotaLedgerSettings, ...config.s3.quota },
      },
    });
    return {
      module: AppModule,
      imports: [
        ObservabilityModule.forRoot({ app: config.app, ...deps }),
        ClockModule,
        CassandraModule.forRoot(config.cassandra),
        KafkaModule.forRoot(config.kafka),
        core,
        S3Module.register(config, core),
      ],
      controllers: [AdminController, BucketAdminController, BucketReportController, FolderCleanupController, SseAdminController],
      providers: [
        AdminTokenGuard,
        AdminListener,
        BootstrapUser,
        snapshotStoreProvider,
        statsUsageProvider(config.admin.statsUrl),
        { provide: FOLDER_FILTER_REPOSITORY, useFactory: (db: CassandraClient) => new FolderFilterRepository(db), inject: [CassandraClient] },
      ],
    };
  }
}
