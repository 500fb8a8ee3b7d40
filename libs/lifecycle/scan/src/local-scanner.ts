import { type Clock, sleep } from '@ostore/shared/clock';
import { partitionForHost, QueueName } from '@ostore/queue/contracts';
import { QueueProducer, TokenBucket } from '@ostore/queue/data-access';
import { KeyGrouper } from './key-grouper';
import { KeyedRow, PageSource } from './page-source';
import { COMPLETED, SCAN_START, ScanPosition, ScanStatus } from './scan-position';
import { emptyStats, ScanHandler, ScanStateStore, ScanStats } from './scan-state';
import { ScanMetrics } from './scan.metrics';
import { TokenRangeReader } from './token-range-reader';
import { progressAt, TokenSpan } from './token-ring';

/** An object (or key) group: what a position can point just past. */
export interface ScanGroup {
  readonly token: bigint;
  readonly bucketId: string;
  readonly parent: string;
  readonly name: string;
}

/** What one table's scan does with the objects it reads. */
export interface ScanTask<T extends KeyedRow, G extends ScanGroup> {
  readonly handler: ScanHandler;
  /** Where its candidates go. */
  readonly queue: QueueName;
  readonly source: PageSource<T>;
  newGrouper(): KeyGrouper<T, G>;
  /** Before a pass (or a resumed segment) reads anything: e.g. loads bucket configurations. */
  begin(): Promise<void>;
  /** Candidate messages (already contract-encoded) for one object; counts into `stats`. */
  process(group: G, now: Date, stats: ScanStats): Promise<string[]>;
  /** After a complete pass, before its result is recorded (e.g. writes the pass's snapshot). */
  completed?(stats: ScanStats, passTs: Date): void | Promise<void>;
  /** Once the pass's counters are known (fresh or resumed), before anything is read. */
  started?(stats: ScanStats, passTs: Date, resumed: boolean): void;
}

/** The scanner's constants (see apps/scanner config). */
export interface LocalScanSettings {
  /** The scanner's identity: `source` of its scan_state rows, `sourceHost` of its candidates. */
  readonly source: string;
  /** The scanned keyspace (the snapshots' `ks`). */
  readonly keyspace: string;
  /** Index of this scanner's host: it publishes to partition `partitionForHost(hostIndex, partitions)`. */
  readonly hostIndex: number;
  /** Rows per page. */
  readonly fetchSize: number;
  /** Rows per second over all tables; 0: unlimited. */
  readonly rowsPerSecond: number;
  /** How often the position is saved (after publishing what precedes it). */
  readonly checkpointMs: number;
  /** Most candidates per publish call (also kept under `publishMaxBytes`). */
  readonly publishBatch: number;
  readonly publishMaxBytes?: number;
  /** Attempts at reading one page before the pass fails (it then resumes from its last checkpoint). */
  readonly readAttempts?: number;
  /** Backoff between read attempts, ms (doubling). */
  readonly readRetryMs?: number;
}

export interface PassResult {
  readonly handler: ScanHandler;
  readonly outcome: 'completed' | 'stopped';
  /** When the pass started (a resumed pass keeps its start). */
  readonly ts: Date;
  readonly stats: ScanStats;
  readonly resumed: boolean;
  /** Seconds this segment took. */
  readonly segmentSeconds: number;
}

/** Minimal structured log (ContextLogger of @ostore/shared/observability fits). */
export interface ScanLog {
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
}

const DEFAULT_PUBLISH_MAX_BYTES = 512 * 1024;

/**
 * One pass of a local scan over one table: reads the spans of the ring this scanner's node is the
 * primary replica of, in token order and page by page, groups rows by object, hands each object to
 * the task (dry-run rule evaluation) and publishes the candidates to this host's partition.
 *
 * Resuming (seed 000: "status is the key the scan stopped at, or completed"): a pass starts from
 * the newest `scan_state` row of (source, keyspace, table) when it is not `completed`, with its
 * counters. Positions only ever point just past a whole object, so a resumed pass re-reads an
 * object it was in the middle of from its first (newest) row. Checkpoints publish every pending
 * candidate before saving the position that follows it: a crash republishes at most one
 * checkpoint interval of candidates (at-least-once; candidates are hints and the scheduler is
 * idempotent), and never loses one.
 *
 * Stopping (`signal`): checked between pages, so the scan stops at a page boundary with the
 * position of the last whole object before it saved.
 *
 * Load: at most `rowsPerSecond` rows per second (a token bucket shared by the tables), so the
 * node's S3 traffic keeps its share of disk and CPU. Objects with more versions than the window
 * are left by a new query that starts after them (`name > key`) instead of reading the rest.
 *
 * Tombstones: a page is one read command, and Cassandra aborts a read that meets more than
 * `tombstone_failure_threshold` (100,000) tombstones before it collects `fetchSize` live rows —
 * e.g. in a directory where a run of 100,000 adjacent keys was deleted and not yet compacted
 * away (gc_grace_seconds). Smaller pages do not help there (the tombstones lie between two live
 * rows). The reader does not retry such a read: it narrows the failure down to the partition
 * and reads that partition in name slices that each stay under the threshold (see
 * TokenRangeReader), so the pass goes on. Only a partition that begins with the run (its key
 * cannot be read) or a slice that cannot be split further is left out: a warning in the log and
 * ostore_scanner_tombstone_skips_total; those rows are scanned once compaction has purged the
 * tombstones (gc_grace_seconds).
 */
export class LocalScanner {
  private readonly limiter?: TokenBucket;

  constructor(
    private readonly settings: LocalScanSettings,
    private readonly producer: QueueProducer,
    private readonly state: ScanStateStore,
    private readonly clock: Clock,
    private readonly metrics: ScanMetrics,
    private readonly log: ScanLog,
  ) {
    // The limiter reads the injected clock: the rate is the scanner's policy in its own time, and a
    // spec can hold time still so that the waits it records do not depend on the machine's load.
    if (settings.rowsPerSecond > 0) this.limiter = new TokenBucket(settings.rowsPerSecond, undefined, () => clock.monotonicMs());
  }

  async run<T extends KeyedRow, G extends ScanGroup>(
    task: ScanTask<T, G>,
    spans: readonly TokenSpan[],
    signal: AbortSignal,
  ): Promise<PassResult> {
    const s = this.settings;
    const started = performance.now();
    const latest = await this.state.latest(s.source, s.keyspace, task.handler);
    const resumed = latest !== undefined && latest.status !== COMPLETED;
    const ts = resumed ? latest.ts : this.clock.now();
    let position: ScanPosition = resumed ? (latest.status as ScanPosition) : SCAN_START;
    const stats: ScanStats = resumed ? { ...latest.stat, resumes: latest.stat.resumes + 1 } : emptyStats();
    let activeFrom = started;
    task.started?.(stats, ts, resumed);

    await task.begin();
    const partition = partitionForHost(s.hostIndex, await this.producer.partitionCount(task.queue));
    const pending: string[] = [];
    // the checkpoint cadence is the injected clock's (monotonic: a wall clock stepped back does not stall it)
    let lastSave = this.clock.monotonicMs();
    const save = async (status: ScanStatus) => {
      await this.publish(task.queue, partition, pending);
      const t = performance.now();
      stats.activeSeconds += (t - activeFrom) / 1000;
      activeFrom = t;
      await this.state.save({ source: s.source, ks: s.keyspace, handler: task.handler, ts, status, stat: stats });
      lastSave = this.clock.monotonicMs();
    };
    if (!resumed) await save(position);
    this.log.info('scan pass started', {
      table: task.handler,
      resumed,
      passStartedAt: ts.toISOString(),
      from: position.partition ? { token: position.token.toString(), ...position.partition } : position.token.toString(),
      spans: spans.length,
      partition,
    });

    const reader = new TokenRangeReader(task.source, spans, position, s.fetchSize, {
      onTombstoneSkip: (skip) => {
        this.metrics.tombstoneSkips.inc({ table: task.handler, kind: skip.kind });
        this.log.warn('a read gave up on tombstones; this part is left to a later pass', {
          table: task.handler,
          ...(skip.kind === 'span'
            ? { kind: skip.kind, from: skip.span.start.toString(), to: skip.span.end.toString() }
            : { kind: skip.kind, token: skip.token.toString(), bucketId: skip.bucketId, parent: skip.parent, afterName: skip.afterName }),
        });
      },
    });
    const grouper = task.newGrouper();
    let skipped: T | undefined;
    const handle = async (group: G, now: Date) => {
      stats.objects++;
      pending.push(...(await task.process(group, now, stats)));
      position = { token: group.token, partition: { bucketId: group.bucketId, parent: group.parent, afterName: group.name } };
    };
    const result = (outcome: PassResult['outcome']): PassResult => ({
      handler: task.handler,
      outcome,
      ts,
      stats,
      resumed,
      segmentSeconds: (performance.now() - started) / 1000,
    });

    for (;;) {
      if (signal.aborted) {
        await save(position);
        this.metrics.passes.inc({ table: task.handler, outcome: 'stopped' });
        return result('stopped');
      }
      const page = await this.readPage(task.handler, reader);
      const now = this.clock.now();
      if (page === undefined) {
        const last = grouper.finish();
        if (last !== undefined) await handle(last, now);
        await task.completed?.(stats, ts);
        await save(COMPLETED);
        this.metrics.passes.inc({ table: task.handler, outcome: 'completed' });
        this.metrics.scanDuration.observe({ table: task.handler }, stats.activeSeconds);
        this.metrics.lastCompleted.set({ table: task.handler }, this.clock.nowMs() / 1000);
        this.metrics.progress.set({ table: task.handler }, 1);
        return result('completed');
      }
      stats.rows += page.length;
      this.metrics.rowsScanned(task.handler, page.length);
      for (const row of page) {
        const done = grouper.push(row);
        if (done !== undefined) await handle(done, now);
      }
      // Once per object: after the skip its group stays open (and capped) until the next object arrives.
      const open = grouper.pending;
      if (open?.capped && open.row !== skipped) {
        reader.skipPast(open.row);
        skipped = open.row;
      }
      if (pending.length >= s.publishBatch) await this.publish(task.queue, partition, pending);
      if (this.clock.monotonicMs() - lastSave >= s.checkpointMs) await save(position);
      this.metrics.progress.set({ table: task.handler }, progressAt(spans, position.token));
      await this.throttle(task.handler, page.length, signal);
    }
  }

  /** Reads the next page, retrying a failed read (the page state stays valid) with a doubling backoff. */
  private async readPage<T extends KeyedRow>(table: ScanHandler, reader: TokenRangeReader<T>): Promise<T[] | undefined> {
    const attempts = this.settings.readAttempts ?? 3;
    let wait = this.settings.readRetryMs ?? 1000;
    for (let attempt = 1; ; attempt++) {
      try {
        return await reader.nextPage();
      } catch (e) {
        if (attempt >= attempts) throw e;
        this.metrics.readRetries.inc({ table });
        this.log.warn('page read failed; retrying', { table, attempt, err: (e as Error).message });
        await sleep(wait);
        wait *= 2;
      }
    }
  }

  /** Publishes and empties `pending`, in chunks that stay under Kafka's default request size. */
  private async publish(queue: QueueName, partition: number, pending: string[]): Promise<void> {
    const maxBytes = this.settings.publishMaxBytes ?? DEFAULT_PUBLISH_MAX_BYTES;
    while (pending.length > 0) {
      let n = 0;
      let bytes = 0;
      while (n < pending.length && n < this.settings.publishBatch) {
        const size = Buffer.byteLength(pending[n]);
        if (n > 0 && bytes + size > maxBytes) break;
        bytes += size;
        n++;
      }
      await this.producer.publish(queue, partition, pending.slice(0, n));
      pending.splice(0, n);
      this.metrics.published(queue, n);
    }
  }

  private async throttle(table: ScanHandler, rows: number, signal: AbortSignal): Promise<void> {
    if (!this.limiter || rows === 0) return;
    const waitMs = this.limiter.reserve(rows);
    if (waitMs <= 0) return;
    this.metrics.throttledSeconds.inc({ table }, waitMs / 1000);
    await sleep(waitMs, signal);
  }
}

