import { Inject, Injectable } from '@nestjs/common';
import type { Client } from 'cassandra-driver';
import { lifecycleTiming } from '@ostore/lifecycle/rules';
import {
  COMPLETED,
  createLocalScan,
  createLocalScanClient,
  localScanSpans,
  LocalScanner,
  PassResult,
  PinnedHostPolicy,
  ScanHandler,
  ScanMetrics,
  ScanStateStore,
  ScanTask,
} from '@ostore/lifecycle/scan';
import { QueueProducer } from '@ostore/queue/data-access';
import { CassandraClient } from '@ostore/shared/cassandra';
import { Clock } from '@ostore/shared/clock';
import { ContextLogger, JsonLogger, MetricsRegistry } from '@ostore/shared/observability';
import { nextPassDue } from '@ostore/stats/snapshot';
import { BackgroundLoop } from '../background-loop';
import { ScannerConfig } from '../config/scanner.config';

export const SCANNER_CONFIG = Symbol('SCANNER_CONFIG');

interface Runtime {
  client: Client;
  policy: PinnedHostPolicy;
  source: string;
  scanner: LocalScanner;
  state: ScanStateStore;
  tasks: ReadonlyMap<ScanHandler, ScanTask<any, any>>;
}

const MAX_IDLE_MS = 60_000;

/**
 * The scanner's loop: every SCAN_INTERVAL_SECONDS (measured from the start of the previous pass,
 * as recorded in scan_state, so the cadence survives restarts; an interval of 5 minutes or more
 * starts passes on the snapshot cut's grid, see nextPassDue) one pass over each configured
 * table, resuming an unfinished pass first. A failed pass (node down, Kafka down, a page that
 * keeps failing) is retried with a doubling backoff up to a minute, from its last checkpoint.
 *
 * Shutdown: `onModuleDestroy` runs before the queue producer and the Cassandra sessions close;
 * it stops the pass at the next page boundary, which publishes what is pending and saves the
 * position, and waits for that.
 */
@Injectable()
export class ScannerService extends BackgroundLoop {
  protected readonly log: ContextLogger;
  protected readonly failure = 'scan failed; retrying from the last checkpoint';
  private readonly metrics: ScanMetrics;
  private runtime?: Runtime;

  constructor(
    @Inject(SCANNER_CONFIG) private readonly config: ScannerConfig,
    @Inject(CassandraClient) private readonly db: CassandraClient,
    @Inject(QueueProducer) private readonly producer: QueueProducer,
    @Inject(Clock) private readonly clock: Clock,
    @Inject(MetricsRegistry) registry: MetricsRegistry,
    @Inject(JsonLogger) private readonly logger: JsonLogger,
  ) {
    super();
    this.log = logger.forContext(ScannerService.name);
    this.metrics = new ScanMetrics(registry);
  }

  protected step(): Promise<number> {
    return this.runDuePasses();
  }

  /** Runs every pass that is due (or unfinished); returns how long to wait for the next one. */
  private async runDuePasses(): Promise<number> {
    const rt = await this.ensureRuntime();
    const ks = this.config.cassandra.keyspace;
    const interval = this.config.scan.intervalMs;
    let idleMs = MAX_IDLE_MS;
    for (const table of this.config.scan.tables) {
      if (this.signal.aborted) return 0;
      const latest = await rt.state.latest(rt.source, ks, table);
      const dueAt = latest?.status === COMPLETED ? nextPassDue(latest.ts.getTime(), interval) : this.clock.nowMs();
      const waitMs = dueAt - this.clock.nowMs();
      if (waitMs > 0) {
        idleMs = Math.min(idleMs, waitMs);
        continue;
      }
      const { spans } = await localScanSpans(rt.client, ks, rt.policy.addresses);
      this.metrics.primaryRanges.set(spans.length);
      const result = await rt.scanner.run(rt.tasks.get(table)!, spans, this.signal);
      this.logPass(result);
      if (result.outcome === 'completed') idleMs = Math.min(idleMs, Math.max(0, nextPassDue(result.ts.getTime(), interval) - this.clock.nowMs()));
    }
    return Math.max(idleMs, 0);
  }

  private logPass(r: PassResult): void {
    const overdue = Object.values(r.stats.overdue).reduce((a, b) => a + b, 0);
    this.log.info(r.outcome === 'completed' ? 'scan pass completed' : 'scan pass stopped', {
      table: r.handler,
      passStartedAt: r.ts.toISOString(),
      resumed: r.resumed,
      rows: r.stats.rows,
      objects: r.stats.objects,
      candidates: r.stats.candidates,
      overdueVersions: r.handler === 'versions' ? overdue : undefined,
      activeSeconds: Math.round(r.stats.activeSeconds * 1000) / 1000,
      segmentSeconds: Math.round(r.segmentSeconds * 1000) / 1000,
      rowsPerSecond: r.stats.activeSeconds > 0 ? Math.round(r.stats.rows / r.stats.activeSeconds) : undefined,
      resumes: r.stats.resumes,
    });
  }

  /** Connects the pinned session and finds the local node (retried by the loop until it works). */
  private async ensureRuntime(): Promise<Runtime> {
    if (this.runtime) return this.runtime;
    const cfg = this.config;
    const { client, policy } = await createLocalScanClient(cfg.cassandra, cfg.scan.nodeAddress);
    try {
      await client.connect();
      const { node, spans } = await localScanSpans(client, cfg.cassandra.keyspace, policy.addresses);
      const source = cfg.scan.hostId ?? node.hostId;
      const timing = lifecycleTiming(cfg.lifecycle.debugDaySeconds || undefined);
      const { scanner, tasks, state } = createLocalScan({
        scanClient: client,
        db: this.db,
        producer: this.producer,
        clock: this.clock,
        metrics: this.metrics,
        log: this.logger.forContext(LocalScanner.name),
        settings: {
          source,
          keyspace: cfg.cassandra.keyspace,
          hostIndex: cfg.scan.hostIndex,
          fetchSize: cfg.scan.fetchSize,
          rowsPerSecond: cfg.scan.rowsPerSecond,
          checkpointMs: cfg.scan.checkpointMs,
          publishBatch: cfg.scan.publishBatch,
        },
        timing,
        overdueGraceMs: cfg.lifecycle.overdueGraceMs,
      });
      const last = await state.latest(source, cfg.cassandra.keyspace, 'versions');
      if (last?.status === COMPLETED) this.metrics.setOverdue(last.stat.overdue);
      this.metrics.primaryRanges.set(spans.length);
      this.runtime = { client, policy, source, scanner, tasks, state };
      this.session = client;
      this.log.info('local scan ready', {
        node: node.address,
        hostId: node.hostId,
        datacenter: node.datacenter,
        source,
        hostIndex: cfg.scan.hostIndex,
        primarySpans: spans.length,
        tables: cfg.scan.tables,
        timing: timing.kind === 'debug' ? `debug day ${timing.dayMs} ms` : 'aws',
      });
      return this.runtime;
    } catch (e) {
      await client.shutdown().catch(() => undefined);
      throw e;
    }
  }
}
