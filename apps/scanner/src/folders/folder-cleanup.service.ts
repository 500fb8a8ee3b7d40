import { Inject, Injectable } from '@nestjs/common';
import type { Client } from 'cassandra-driver';
import { BucketCatalog, createLocalScanClient, findLocalHost, MetastoreBucketSource, PinnedHostPolicy } from '@ostore/lifecycle/scan';
import { BucketsRepository, FolderFilterRepository } from '@ostore/metastore/data-access';
import { QueueProducer } from '@ostore/queue/data-access';
import { CassandraClient } from '@ostore/shared/cassandra';
import { Clock } from '@ostore/shared/clock';
import { ContextLogger, JsonLogger, MetricsRegistry } from '@ostore/shared/observability';
import { BackgroundLoop } from '../background-loop';
import { ScannerConfig } from '../config/scanner.config';
import {
  FilterBuildJob,
  FolderCleanupCycle,
  FolderScanJob,
  folderSources,
  leafSources,
  localRingOf,
  ScannerFolderMetrics,
} from '@ostore/folders/scan';

export const FOLDER_CLEANUP_CONFIG = Symbol('FOLDER_CLEANUP_CONFIG');

const MAX_POLL_MS = 30_000;

/**
 * The scanner's empty-directory cleanup loop, beside the lifecycle scan and over its own pinned
 * session: a tick (FolderCleanupCycle) at least every 30 s or every interval if shorter; a failing
 * tick is retried with a doubling backoff up to a minute. Stopping aborts a build or a folder scan
 * at a page boundary; neither leaves anything half-used (an unfinished build is never marked
 * complete, an unfinished scan records no pass and is redone).
 */
@Injectable()
export class FolderCleanupService extends BackgroundLoop {
  protected readonly log: ContextLogger;
  protected readonly failure = 'folder cleanup tick failed; retrying';
  private readonly metrics: ScannerFolderMetrics;
  private runtime?: { client: Client; policy: PinnedHostPolicy; cycle: FolderCleanupCycle };

  constructor(
    @Inject(FOLDER_CLEANUP_CONFIG) private readonly config: ScannerConfig,
    @Inject(CassandraClient) private readonly db: CassandraClient,
    @Inject(QueueProducer) private readonly producer: QueueProducer,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(MetricsRegistry) registry: MetricsRegistry,
    @Inject(JsonLogger) private readonly logger: JsonLogger,
  ) {
    super();
    this.log = logger.forContext(FolderCleanupService.name);
    this.metrics = new ScannerFolderMetrics(registry);
  }

  protected async step(signal: AbortSignal): Promise<number> {
    const rt = await this.ensureRuntime();
    const ring = await localRingOf(rt.client, this.config.cassandra.keyspace, rt.policy.addresses);
    const outcome = await rt.cycle.tick(ring, signal);
    // a finished step goes straight on to the next (build, then scan); otherwise wait
    return outcome.kind === 'built' ? 0 : Math.min(MAX_POLL_MS, this.config.folders.intervalMs);
  }

  private async ensureRuntime(): Promise<NonNullable<FolderCleanupService['runtime']>> {
    if (this.runtime) return this.runtime;
    const cfg = this.config;
    const { client, policy } = await createLocalScanClient(cfg.cassandra, cfg.scan.nodeAddress);
    try {
      await client.connect();
      const host = findLocalHost(client, policy.addresses);
      const source = cfg.scan.hostId ?? String(host.hostId);
      const repo = new FolderFilterRepository(this.db);
      const log = this.logger.forContext(FolderCleanupCycle.name);
      const f = cfg.folders;
      const build = new FilterBuildJob(
        leafSources(client),
        repo,
        { fetchSize: cfg.scan.fetchSize, chunkBytes: f.chunkBytes, rowsPerSecond: cfg.scan.rowsPerSecond },
        this.clock,
        this.metrics,
        log,
      );
      const scan = new FolderScanJob(
        folderSources(client),
        repo,
        new BucketCatalog(new MetastoreBucketSource(new BucketsRepository(this.db)), undefined, () => this.clock.monotonicMs()),
        this.producer,
        { fetchSize: cfg.scan.fetchSize, hostIndex: cfg.scan.hostIndex, maxPerParent: f.maxPerParent, publishBatch: cfg.scan.publishBatch },
        this.metrics,
        log,
      );
      const cycle = new FolderCleanupCycle(
        repo,
        build,
        scan,
        {
          source,
          intervalMs: f.intervalMs,
          maxAgeMs: f.maxAgeMs,
          fpr: f.fpr,
          minDirectories: f.minDirectories,
          saturationFactor: 2,
          headroom: 1.5,
        },
        this.clock,
        this.metrics,
        log,
      );
      this.runtime = { client, policy, cycle };
      this.session = client;
      this.log.info('folder cleanup ready', { source, intervalMs: f.intervalMs, fpr: f.fpr, maxPerParent: f.maxPerParent });
      return this.runtime;
    } catch (e) {
      await client.shutdown().catch(() => undefined);
      throw e;
    }
  }
}
