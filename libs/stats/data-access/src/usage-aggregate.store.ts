import { CassandraClient } from '@ostore/shared/cassandra';
import { Clock } from '@ostore/shared/clock';
import {
  addSums,
  dayOf,
  daysOf,
  EVENT_LAYOUTS,
  NO_USAGE,
  remainingTtlSeconds,
  UsageSums,
  WINDOW_MS,
} from '@ostore/stats/domain';
import { UsageRetention } from './usage-event.store';

/** One bucket's sums over one 5-minute window. */
export interface UsageAggregate extends UsageSums {
  bucketId: string;
  windowStart: Date;
}

/** What a recomputation found: the stored sums before and the sums of the window's events now. */
export interface Recomputed {
  previous: UsageSums;
  current: UsageSums;
}

/**
 * The 5-minute aggregates in `usage_aggregates`, each recomputed from the window's raw events
 * rather than incremented: an aggregate is a function of the set of stored events, which a
 * replayed batch cannot change (its rows are already there), so a replay changes no aggregate.
 * The cost of a recomputation is one read of the window's events over the known partitions.
 */
export class UsageAggregateStore {
  constructor(
    private readonly client: CassandraClient,
    private readonly clock: Clock,
    private readonly retention: UsageRetention,
  ) {}

  /**
   * Sums the window's stored events and writes the aggregate. Write timestamp = the window's start
   * (µs) + the number of events summed: a sum over more events supersedes one over fewer (also
   * one written by a slower process that saw fewer rows), an equal sum rewrites equal cells, and
   * TWCS files the row under its window's time. TTL from the window's deadline (end + retention).
   */
  async recompute(bucketId: string, windowStart: Date): Promise<Recomputed> {
    const [previous, current] = await Promise.all([
      this.stored(bucketId, windowStart),
      this.sumEvents(bucketId, windowStart),
    ]);
    const windowEnd = new Date(windowStart.getTime() + WINDOW_MS);
    const ttl = remainingTtlSeconds(windowEnd, this.retention.aggregatesSeconds, this.clock.now());
    if (ttl !== undefined && current.events > 0) {
      const timestamp = windowStart.getTime() * 1000 + Math.min(current.events, WINDOW_MS * 1000 - 1);
      await this.client.execute(
        `INSERT INTO ${this.client.keyspace}.usage_aggregates (bucket_id, day, window_start, bytes, objects, events) VALUES (?, ?, ?, ?, ?, ?) USING TTL ? AND TIMESTAMP ?`,
        [
          bucketId,
          dayOf(windowStart),
          windowStart,
          current.bytes,
          current.objects,
          current.events,
          ttl,
          timestamp,
        ],
        { isIdempotent: true },
      );
    }
    return { previous, current };
  }

  /** The bucket's stored aggregates with a window start in `[from, to)`, in time order. */
  async *aggregates(bucketId: string, from: Date, to: Date): AsyncGenerator<UsageAggregate> {
    for (const day of daysOf(from, to)) {
      const rows = this.client.rows(
        `SELECT window_start, bytes, objects, events FROM ${this.client.keyspace}.usage_aggregates WHERE bucket_id = ? AND day = ? AND window_start >= ? AND window_start < ?`,
        [bucketId, day, from, to],
        { isIdempotent: true },
      );
      for await (const r of rows)
        yield {
          bucketId,
          windowStart: r['window_start'] as Date,
          bytes: Number(r['bytes']),
          objects: Number(r['objects']),
          events: Number(r['events']),
        };
    }
  }

  private async stored(bucketId: string, windowStart: Date): Promise<UsageSums> {
    const rs = await this.client.execute(
      `SELECT bytes, objects, events FROM ${this.client.keyspace}.usage_aggregates WHERE bucket_id = ? AND day = ? AND window_start = ?`,
      [bucketId, dayOf(windowStart), windowStart],
      { isIdempotent: true },
    );
    const r = rs.first();
    return r
      ? { bytes: Number(r['bytes']), objects: Number(r['objects']), events: Number(r['events']) }
      : NO_USAGE;
  }

  /** Sums of the window's events over every partition of every known layout, read concurrently. */
  private async sumEvents(bucketId: string, windowStart: Date): Promise<UsageSums> {
    const day = dayOf(windowStart);
    const windowEnd = new Date(windowStart.getTime() + WINDOW_MS);
    const parts = EVENT_LAYOUTS.flatMap((l) =>
      Array.from({ length: l.shards }, (_, shard) => ({ version: l.version, shard })),
    );
    const sums = await Promise.all(
      parts.map(async ({ version, shard }) => {
        const s = { bytes: 0, objects: 0, events: 0 };
        const rows = this.client.rows(
          `SELECT bytes, objects FROM ${this.client.keyspace}.usage_events WHERE bucket_id = ? AND day = ? AND layout_version = ? AND shard = ? AND occurred_at >= ? AND occurred_at < ?`,
          [bucketId, day, version, shard, windowStart, windowEnd],
          { fetchSize: 5000, isIdempotent: true },
        );
        for await (const r of rows) {
          s.bytes += Number(r['bytes']);
          s.objects += r['objects'] === null ? 0 : Number(r['objects']);
          s.events += 1;
        }
        return s;
      }),
    );
    return sums.reduce(addSums, NO_USAGE);
  }
}
