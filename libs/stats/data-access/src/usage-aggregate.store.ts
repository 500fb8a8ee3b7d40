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
import { EVENT_COLUMNS, eventOfRow } from './usage-event.entity';
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

/** A window's stored events: their sums and ids. */
export interface WindowEvents extends UsageSums {
  ids: string[];
}

/**
 * The 5-minute aggregates in `usage_aggregates`, each an absolute value, never an
 * increment: the sums of the set of the window's stored events (kept in the stats app's local
 * state while the window is open, rebuilt from the window's raw events when that state is missing),
 * which a replayed batch cannot change (its events are already in the set).
 */
export class UsageAggregateStore {
  constructor(
    private readonly client: CassandraClient,
    private readonly clock: Clock,
    private readonly retention: UsageRetention,
  ) {}

  /**
   * Sums the window's stored events and writes the aggregate (see `write`): what a window without
   * trusted local state is rebuilt from.
   */
  async recompute(bucketId: string, windowStart: Date): Promise<Recomputed> {
    const [previous, current] = await Promise.all([
      this.stored(bucketId, windowStart),
      this.windowEvents(bucketId, windowStart),
    ]);
    await this.write(bucketId, windowStart, current);
    return { previous, current };
  }

  /**
   * Writes a window's absolute sums. Write timestamp = the window's start (µs) + the number of
   * events summed: a sum over more events supersedes one over fewer (also one written by a slower
   * process that saw fewer rows), an equal sum rewrites equal cells, and TWCS files the row under
   * its window's time. TTL from the window's deadline (end + retention); nothing past it.
   */
  async write(bucketId: string, windowStart: Date, sums: UsageSums): Promise<void> {
    const windowEnd = new Date(windowStart.getTime() + WINDOW_MS);
    const ttl = remainingTtlSeconds(windowEnd, this.retention.aggregatesSeconds, this.clock.now());
    if (ttl === undefined || sums.events === 0) return;
    const timestamp = windowStart.getTime() * 1000 + Math.min(sums.events, WINDOW_MS * 1000 - 1);
    await this.client.execute(
      `INSERT INTO ${this.client.keyspace}.usage_aggregates (bucket_id, day, window_start, bytes, objects, events) VALUES (?, ?, ?, ?, ?, ?) USING TTL ? AND TIMESTAMP ?`,
      [bucketId, dayOf(windowStart), windowStart, sums.bytes, sums.objects, sums.events, ttl, timestamp],
      { isIdempotent: true },
    );
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

  /**
   * The window's stored events over every partition of every known layout, read concurrently:
   * their sums and their ids (what a rebuilt window's dedup entries are made of).
   */
  async windowEvents(bucketId: string, windowStart: Date): Promise<WindowEvents> {
    const day = dayOf(windowStart);
    const windowEnd = new Date(windowStart.getTime() + WINDOW_MS);
    const parts = EVENT_LAYOUTS.flatMap((l) =>
      Array.from({ length: l.shards }, (_, shard) => ({ version: l.version, shard })),
    );
    const ids: string[] = [];
    const sums = await Promise.all(
      parts.map(async ({ version, shard }) => {
        const s = { bytes: 0, objects: 0, events: 0 };
        const rows = this.client.rows(
          `SELECT ${EVENT_COLUMNS} FROM ${this.client.keyspace}.usage_events WHERE bucket_id = ? AND day = ? AND layout_version = ? AND shard = ? AND occurred_at >= ? AND occurred_at < ?`,
          [bucketId, day, version, shard, windowStart, windowEnd],
          { fetchSize: 5000, isIdempotent: true },
        );
        for await (const r of rows) {
          const e = eventOfRow(r);
          ids.push(e.eventId);
          s.bytes += e.bytes;
          s.objects += e.objects ?? 0;
          s.events += 1;
        }
        return s;
      }),
    );
    return { ...sums.reduce(addSums, NO_USAGE), ids };
  }
}
