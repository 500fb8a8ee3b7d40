import { CassandraClient } from '@ostore/shared/cassandra';
import { Clock } from '@ostore/shared/clock';
import {
  compareEvents,
  CURRENT_LAYOUT,
  dayOf,
  daysOf,
  EVENT_LAYOUTS,
  EventLayout,
  mergeSorted,
  remainingTtlSeconds,
  shardOf,
  UsageEvent,
} from '@ostore/stats/domain';
import {
  EVENT_COLUMNS,
  eventInsert,
  eventInsertParams,
  eventOfRow,
  int32,
  PartitionKeyBytes,
  uuidBytes,
} from './usage-event.entity';

interface Statement {
  query: string;
  params: unknown[];
}

interface Partition {
  key: PartitionKeyBytes;
  rows: Statement[];
}

/** How long raw events and aggregates are kept, counted from when they happened. */
export interface UsageRetention {
  eventsSeconds: number;
  aggregatesSeconds: number;
}

/** Where a reader stopped: the last event returned; the next read continues strictly after it. */
export interface EventCursor {
  occurredAt: Date;
  eventId: string;
}

/** What a write of a batch did. */
export interface EventWriteResult {
  written: UsageEvent[];
  /** Past their original deadline: not written. */
  expired: UsageEvent[];
}

/**
 * The immutable usage events in `usage_events` (seed 003; the table's doc tells the TTL and
 * timestamp policy). Writes are idempotent: the primary key comes from the event alone (its
 * day, the current layout's SHA-256 shard, its time and id), so a retry after a timeout, whose
 * outcome is unknown, simply writes the same row again.
 */
export class UsageEventStore {
  constructor(
    private readonly client: CassandraClient,
    private readonly clock: Clock,
    private readonly retention: UsageRetention,
    private readonly layout: EventLayout = CURRENT_LAYOUT,
    private readonly concurrency = 32,
    private readonly batchRows = 100,
  ) {}

  /**
   * Writes every event whose deadline has not passed (in the row format of the store's layout,
   * see usage-event.entity): grouped by partition into UNLOGGED batches of at most `batchRows` rows (one partition per batch, so one mutation on one replica set, no
   * batchlog), at most `concurrency` batches in flight. A batch that fails may have been partly
   * applied; the caller retries the whole write, which rewrites the same rows (same key, TTL from
   * the same deadline, write timestamp = occurred_at).
   */
  async write(events: readonly UsageEvent[]): Promise<EventWriteResult> {
    const now = this.clock.now();
    const cql = eventInsert(this.client.keyspace, this.layout);
    const written: UsageEvent[] = [];
    const expired: UsageEvent[] = [];
    // per bucket (its id's bytes, parsed once), its partitions by day and shard (no key string per
    // event), each with its key values in wire form; the int values (day, shard, TTL) encoded once per call
    const buckets = new Map<string, { uuid: Buffer; partitions: Map<number, Partition> }>();
    const ints = new Map<number, Buffer>();
    const int = (n: number): Buffer => {
      let b = ints.get(n);
      if (!b) ints.set(n, (b = int32(n)));
      return b;
    };
    for (const e of events) {
      const ttl = remainingTtlSeconds(e.occurredAt, this.retention.eventsSeconds, now);
      if (ttl === undefined) {
        expired.push(e);
        continue;
      }
      const day = dayOf(e.occurredAt);
      const shard = shardOf(e.eventId, this.layout);
      let bucket = buckets.get(e.bucketId);
      if (!bucket) buckets.set(e.bucketId, (bucket = { uuid: uuidBytes(e.bucketId), partitions: new Map() }));
      const k = day * this.layout.shards + shard;
      let p = bucket.partitions.get(k);
      if (!p)
        bucket.partitions.set(
          k,
          (p = { key: { bucket: bucket.uuid, day: int(day), shard: int(shard) }, rows: [] }),
        );
      p.rows.push({ query: cql, params: eventInsertParams(e, this.layout, p.key, int(ttl)) });
      written.push(e);
    }
    const batches: Statement[][] = [];
    for (const { partitions } of buckets.values())
      for (const { rows } of partitions.values())
        if (rows.length <= this.batchRows) batches.push(rows);
        else
          for (let i = 0; i < rows.length; i += this.batchRows)
            batches.push(rows.slice(i, i + this.batchRows));
    let next = 0;
    const worker = async () => {
      while (next < batches.length) {
        const b = batches[next++];
        if (b.length === 1) await this.client.execute(b[0].query, b[0].params, { isIdempotent: true });
        else await this.client.batch(b, { logged: false, isIdempotent: true });
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, batches.length) }, worker));
    return { written, expired };
  }

  /**
   * A bucket's events in `[from, to)`, in `(occurredAt, eventId)` order, each once. Per day it
   * reads every partition of every known layout (a fixed, small fan-out: the sum of the layouts'
   * shard counts) with clustering-range queries of `pageSize` rows and merges them; days are read
   * one after the other. Holds at most one page per partition of one day.
   */
  async *events(
    bucketId: string,
    from: Date,
    to: Date,
    options: { pageSize?: number; after?: EventCursor } = {},
  ): AsyncGenerator<UsageEvent> {
    const pageSize = options.pageSize ?? 1000;
    const after = options.after;
    for (const day of daysOf(after && after.occurredAt > from ? after.occurredAt : from, to)) {
      const sources = EVENT_LAYOUTS.flatMap((layout) =>
        Array.from({ length: layout.shards }, (_, shard) =>
          this.partition(bucketId, day, layout, shard, from, to, pageSize, after),
        ),
      );
      yield* mergeSorted(sources, compareEvents);
    }
  }

  /** At most `limit` events after `after` (or from `from`), and the cursor to continue from when there may be more. */
  async page(
    bucketId: string,
    from: Date,
    to: Date,
    limit: number,
    after?: EventCursor,
  ): Promise<{ events: UsageEvent[]; next?: EventCursor }> {
    const events: UsageEvent[] = [];
    for await (const e of this.events(bucketId, from, to, { pageSize: Math.min(limit, 1000), after })) {
      events.push(e);
      if (events.length === limit) break;
    }
    const last = events[events.length - 1];
    return {
      events,
      ...(events.length === limit ? { next: { occurredAt: last.occurredAt, eventId: last.eventId } } : {}),
    };
  }

  private async *partition(
    bucketId: string,
    day: number,
    layout: EventLayout,
    shard: number,
    from: Date,
    to: Date,
    pageSize: number,
    after?: EventCursor,
  ): AsyncGenerator<UsageEvent> {
    const ks = this.client.keyspace;
    const key = 'bucket_id = ? AND day = ? AND layout_version = ? AND shard = ?';
    const resume = after && after.occurredAt >= from;
    const cql = resume
      ? `SELECT ${EVENT_COLUMNS} FROM ${ks}.usage_events WHERE ${key} AND (occurred_at, event_id) > (?, ?) AND (occurred_at) < (?)`
      : `SELECT ${EVENT_COLUMNS} FROM ${ks}.usage_events WHERE ${key} AND occurred_at >= ? AND occurred_at < ?`;
    const params = resume
      ? [bucketId, day, layout.version, shard, after.occurredAt, after.eventId, to]
      : [bucketId, day, layout.version, shard, from, to];
    for await (const row of this.client.rows(cql, params, { fetchSize: pageSize, isIdempotent: true }))
      yield eventOfRow(row);
  }
}
