import { types } from 'cassandra-driver';
import { CassandraClient } from '@ostore/shared/cassandra';
import { Clock } from '@ostore/shared/clock';
import {
  addSums,
  lastClosedWindow,
  NO_USAGE,
  remainingTtlSeconds,
  UsageSums,
  WINDOW_MS,
} from '@ostore/stats/domain';
import { UsageAggregateStore } from './usage-aggregate.store';
import { UsageRetention } from './usage-event.store';

/** A bucket's usage as counted from its events. */
export interface CurrentUsage extends UsageSums {
  bucketId: string;
  /** Every event up to this instant (exclusive) that has reached the store is counted. */
  asOf: Date;
}

interface Checkpoint extends UsageSums {
  throughWindow: Date;
}

/**
 * Per-bucket running totals (`usage_totals`): a checkpoint row per closed window holds the sums
 * of every aggregate up to it, so current usage = the newest checkpoint + the open windows after
 * it, a bounded read however old the bucket. Checkpoints are recomputed, never incremented, and
 * written with the number of events they count as write timestamp: rewriting one over the same
 * aggregates (a replay, two processes) changes nothing; one rebuilt with a late event supersedes.
 */
export class UsageTotalsStore {
  constructor(
    private readonly client: CassandraClient,
    private readonly clock: Clock,
    private readonly aggregates: UsageAggregateStore,
    private readonly retention: UsageRetention,
  ) {}

  /** The bucket's usage now: the newest checkpoint plus the aggregates after it. */
  async current(bucketId: string): Promise<CurrentUsage> {
    const now = this.clock.now();
    const head = await this.head(bucketId, now);
    const rest = await this.sumAggregates(bucketId, head.after, now);
    return { bucketId, ...addSums(head, rest), asOf: now };
  }

  /**
   * After a batch recomputed `changed` windows of the bucket: rebuilds the checkpoints a late
   * event made stale, moves the newest one up to the last closed window, and answers the usage.
   */
  async update(bucketId: string, changed: readonly Date[]): Promise<CurrentUsage> {
    const earliest = changed.reduce<Date | undefined>(
      (min, w) => (min === undefined || w < min ? w : min),
      undefined,
    );
    if (earliest !== undefined && earliest < (await this.head(bucketId, this.clock.now())).after)
      await this.rebuildFrom(bucketId, earliest);
    await this.advance(bucketId);
    return this.current(bucketId);
  }

  /** Moves the bucket's newest checkpoint up to the last closed window (nothing when it is there). */
  async advance(bucketId: string): Promise<void> {
    const now = this.clock.now();
    const through = lastClosedWindow(now);
    const head = await this.head(bucketId, now);
    if (head.after.getTime() > through.getTime()) return;
    const sums = addSums(
      head,
      await this.sumAggregates(bucketId, head.after, new Date(through.getTime() + WINDOW_MS)),
    );
    await this.write(bucketId, { throughWindow: through, ...sums });
  }

  /**
   * After the aggregate of `window` changed although a checkpoint already covered it (a late
   * event): rewrites every checkpoint from that window on, from the checkpoint before it.
   */
  async rebuildFrom(bucketId: string, window: Date): Promise<void> {
    const ks = this.client.keyspace;
    const before = await this.client.execute(
      `SELECT through_window, bytes, objects, events FROM ${ks}.usage_totals WHERE bucket_id = ? AND through_window < ? LIMIT 1`,
      [bucketId, window],
      { isIdempotent: true },
    );
    let running: UsageSums = before.first() ? checkpointOf(before.first()) : NO_USAGE;
    let after = before.first()
      ? nextWindow(checkpointOf(before.first()).throughWindow)
      : this.horizon(this.clock.now());
    const later = this.client.rows(
      `SELECT through_window FROM ${ks}.usage_totals WHERE bucket_id = ? AND through_window >= ? ORDER BY through_window ASC`,
      [bucketId, window],
      { isIdempotent: true },
    );
    for await (const row of later) {
      const through = row['through_window'] as Date;
      running = addSums(running, await this.sumAggregates(bucketId, after, nextWindow(through)));
      await this.write(bucketId, { throughWindow: through, ...running });
      after = nextWindow(through);
    }
  }

  /** Where the newest checkpoint leaves off (its sums, and the first window it does not cover). */
  private async head(bucketId: string, now: Date): Promise<UsageSums & { after: Date }> {
    const rs = await this.client.execute(
      `SELECT through_window, bytes, objects, events FROM ${this.client.keyspace}.usage_totals WHERE bucket_id = ? LIMIT 1`,
      [bucketId],
      { isIdempotent: true },
    );
    const row = rs.first();
    if (!row) return { ...NO_USAGE, after: this.horizon(now) };
    const cp = checkpointOf(row);
    return { bytes: cp.bytes, objects: cp.objects, events: cp.events, after: nextWindow(cp.throughWindow) };
  }

  /** No event older than the event retention can be stored, so no aggregate of a bucket without checkpoints starts before it. */
  private horizon(now: Date): Date {
    return new Date(now.getTime() - this.retention.eventsSeconds * 1000);
  }

  private async sumAggregates(bucketId: string, from: Date, to: Date): Promise<UsageSums> {
    let sums = NO_USAGE;
    for await (const a of this.aggregates.aggregates(bucketId, from, to)) sums = addSums(sums, a);
    return sums;
  }

  private async write(bucketId: string, cp: Checkpoint): Promise<void> {
    const ttl = remainingTtlSeconds(
      nextWindow(cp.throughWindow),
      this.retention.aggregatesSeconds,
      this.clock.now(),
    );
    if (ttl === undefined) return;
    await this.client.execute(
      `INSERT INTO ${this.client.keyspace}.usage_totals (bucket_id, through_window, bytes, objects, events) VALUES (?, ?, ?, ?, ?) USING TTL ? AND TIMESTAMP ?`,
      [bucketId, cp.throughWindow, cp.bytes, cp.objects, cp.events, ttl, cp.events],
      { isIdempotent: true },
    );
  }
}

function checkpointOf(row: types.Row): Checkpoint {
  return {
    throughWindow: row['through_window'] as Date,
    bytes: Number(row['bytes']),
    objects: Number(row['objects']),
    events: Number(row['events']),
  };
}

function nextWindow(windowStart: Date): Date {
  return new Date(windowStart.getTime() + WINDOW_MS);
}
