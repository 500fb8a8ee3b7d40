import { Inject, Injectable, OnApplicationBootstrap, OnModuleDestroy, Provider } from '@nestjs/common';
import { CassandraClient } from '@ostore/shared/cassandra';
import { Clock, sleep } from '@ostore/shared/clock';
import { ContextLogger, JsonLogger, MetricsRegistry } from '@ostore/shared/observability';
import { SnapshotStore } from '@ostore/stats/snapshot-store';
import { StatsConfig } from '../config/stats.config';
import { SnapshotCombiner } from './snapshot-combiner';
import { SnapshotMetrics } from './snapshot.metrics';

const SNAPSHOT_SETTINGS = Symbol('SNAPSHOT_SETTINGS');
const MAX_BACKOFF_MS = 60_000;

/**
 * Runs the combiner every `STATS_SNAPSHOT_COMBINE_SECONDS` (and at boot), so that a completed
 * scan pass shows in the combined snapshot within that interval. A failing step is retried after
 * a backoff doubling up to a minute; the stop waits for a running step.
 */
@Injectable()
export class SnapshotCombineLoop implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly stop = new AbortController();
  private loop?: Promise<void>;
  private readonly log: ContextLogger;

  constructor(
    private readonly combiner: SnapshotCombiner,
    @Inject(SNAPSHOT_SETTINGS) private readonly settings: StatsConfig['snapshots'],
    logger: JsonLogger,
  ) {
    this.log = logger.forContext(SnapshotCombineLoop.name);
  }

  onApplicationBootstrap(): void {
    this.loop = this.run();
  }

  async onModuleDestroy(): Promise<void> {
    this.stop.abort();
    await this.loop;
  }

  private async run(): Promise<void> {
    let backoffMs = 1000;
    while (!this.stop.signal.aborted) {
      try {
        await this.combiner.combineOnce();
        backoffMs = 1000;
        await sleep(this.settings.combineIntervalMs, this.stop.signal);
      } catch (e) {
        this.log.error('snapshot combination failed', { err: e, retryInMs: backoffMs });
        await sleep(backoffMs, this.stop.signal);
        backoffMs = Math.min(backoffMs * 2, MAX_BACKOFF_MS);
      }
    }
  }
}

/** The snapshot side of the stats app: the combiner, its loop and metrics. */
export function snapshotProviders(config: StatsConfig): Provider[] {
  return [
    { provide: SNAPSHOT_SETTINGS, useValue: config.snapshots },
    { provide: SnapshotMetrics, useFactory: (m: MetricsRegistry) => new SnapshotMetrics(m), inject: [MetricsRegistry] },
    { provide: SnapshotStore, useFactory: (c: CassandraClient, clock: Clock) => new SnapshotStore(c, clock), inject: [CassandraClient, Clock] },
    {
      provide: SnapshotCombiner,
      useFactory: (store: SnapshotStore, clock: Clock, m: SnapshotMetrics, logger: JsonLogger) =>
        new SnapshotCombiner(store, config.cassandra.keyspace, clock, m, logger.forContext(SnapshotCombiner.name)),
      inject: [SnapshotStore, Clock, SnapshotMetrics, JsonLogger],
    },
    SnapshotCombineLoop,
  ];
}
