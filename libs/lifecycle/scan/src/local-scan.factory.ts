import type { Client } from 'cassandra-driver';
import type { CassandraClient } from '@ostore/shared/cassandra';
import type { Clock } from '@ostore/shared/clock';
import type { LifecycleTiming } from '@ostore/lifecycle/rules';
import { BucketsRepository, UploadsRepository, VersionsRepository } from '@ostore/metastore/data-access';
import { SnapshotStore } from '@ostore/stats/snapshot-store';
import type { QueueProducer } from '@ostore/queue/data-access';
import { BucketCatalog, MetastoreBucketSource } from './bucket-catalog';
import { CassandraPageSource, UPLOADS_TABLE, VERSIONS_TABLE } from './cassandra-page-source';
import { LocalScanner, LocalScanSettings, ScanLog, ScanTask } from './local-scanner';
import { ScanSnapshots, VersionTail } from './scan-snapshots';
import { ScanHandler, ScanStateStore } from './scan-state';
import { CassandraScanStateStore } from './scan-state.repository';
import { ScanMetrics } from './scan.metrics';
import { UploadsScanTask, VersionsScanTask } from './scan-tasks';
import { BlockRefsPageSource, BlockRefsScanTask, MetastoreRefBucketSource } from './block-refs-scan';
import { MetastoreVersionTagSource } from './version-tags';

export interface LocalScanDeps {
  /** The session pinned to the scanner's node (createLocalScanClient), connected. */
  readonly scanClient: Client;
  /** The app's ordinary session: bucket settings, tags, scan_state. */
  readonly db: CassandraClient;
  readonly producer: QueueProducer;
  readonly clock: Clock;
  readonly metrics: ScanMetrics;
  readonly log: ScanLog;
  readonly settings: LocalScanSettings;
  readonly timing: LifecycleTiming;
  readonly overdueGraceMs: number;
  /** Per-window sums kept for versions this recent before a pass's cut (default 2 h). */
  readonly snapshotLookbackMs?: number;
}

export interface LocalScan {
  readonly scanner: LocalScanner;
  readonly state: ScanStateStore;
  readonly tasks: ReadonlyMap<ScanHandler, ScanTask<any, any>>;
}

/**
 * Wires a LocalScanner and its tasks over Cassandra (the scanner app, tests and the bench): the
 * two lifecycle tasks count the pass's usage snapshot, the `block_refs` task its most-referenced blocks.
 */
export function createLocalScan(d: LocalScanDeps): LocalScan {
  const state = new CassandraScanStateStore(d.db, d.clock);
  const snapshots = new ScanSnapshots(
    new SnapshotStore(d.db, d.clock),
    { source: d.settings.source, keyspace: d.settings.keyspace, lookbackMs: d.snapshotLookbackMs },
    d.log,
  );
  const scanner = new LocalScanner(d.settings, d.producer, state, d.clock, d.metrics, d.log);
  const buckets = new BucketCatalog(new MetastoreBucketSource(new BucketsRepository(d.db)), undefined, () => d.clock.monotonicMs());
  const tasks = new Map<ScanHandler, ScanTask<any, any>>([
    [
      'versions',
      new VersionsScanTask(
        new CassandraPageSource(d.scanClient, VERSIONS_TABLE),
        buckets,
        new MetastoreVersionTagSource(new VersionsRepository(d.db)),
        { timing: d.timing, overdueGraceMs: d.overdueGraceMs, sourceHost: d.settings.source },
        d.metrics,
        d.log,
        { counting: snapshots, tail: new VersionTail(d.scanClient, d.settings.fetchSize) },
      ),
    ],
    [
      'uploads',
      new UploadsScanTask(new CassandraPageSource(d.scanClient, UPLOADS_TABLE), buckets, { timing: d.timing }, d.metrics, d.log, {
        counting: snapshots,
        parts: new UploadsRepository(d.db),
      }),
    ],
    [
      'block_refs',
      new BlockRefsScanTask(new BlockRefsPageSource(d.scanClient), buckets, new MetastoreRefBucketSource(d.db), snapshots, d.metrics),
    ],
  ]);
  return { scanner, state, tasks };
}
