import { types } from 'cassandra-driver';
import { EventLayout, UsageEvent } from '@ostore/stats/domain';

/** The columns of `usage_events` a reader selects, in order: both row formats' (one of them is null). */
export const EVENT_COLUMNS =
  'occurred_at, event_id, bucket_id, bucket, kind, bytes, objects, source, source_host, payload';

/**
 * How a layout stores an event's fields. Layout 1: as columns (`bucket`, `kind`, `bytes`,
 * `objects`, `source`, `source_host`). Layout 2 and later: one `payload` cell (migration 18), the
 * JSON array `[kind, bytes, objects | null, source, sourceHost, bucket]`, one cell to encode,
 * write and expire instead of six.
 */
export function compactRows(layout: EventLayout): boolean {
  return layout.version >= 2;
}

/** The payload cell of an event (layout 2 and later). */
export function eventPayload(e: UsageEvent): string {
  return JSON.stringify([e.kind, e.bytes, e.objects ?? null, e.source, e.sourceHost, e.bucket]);
}

/**
 * The INSERT of one event row under a layout and the names of its bound values after the key
 * (bucket_id, day, shard, occurred_at, event_id): the layout version is a literal, the TTL and
 * write timestamp follow the values.
 */
export function eventInsert(ks: string, layout: EventLayout): string {
  const key = 'bucket_id, day, layout_version, shard, occurred_at, event_id';
  const v = layout.version;
  return compactRows(layout)
    ? `INSERT INTO ${ks}.usage_events (${key}, payload) VALUES (?, ?, ${v}, ?, ?, ?, ?) USING TTL ? AND TIMESTAMP ?`
    : `INSERT INTO ${ks}.usage_events (${key}, bucket, kind, bytes, objects, source, source_host)
       VALUES (?, ?, ${v}, ?, ?, ?, ?, ?, ?, ?, ?, ?) USING TTL ? AND TIMESTAMP ?`;
}

/** An event partition's key values in wire form, made once per partition by the writer. */
export interface PartitionKeyBytes {
  /** The bucket id's 16 bytes. */
  bucket: Buffer;
  day: Buffer;
  shard: Buffer;
}

/**
 * The bound values of `eventInsert` for one event, in wire form where the driver would otherwise
 * build them per row (it sends a Buffer as it is): the partition key's values made once per
 * partition, the TTL (`int32`, shared by the events of one second), and the event time and write
 * timestamp written straight into 8-byte big-endian integers instead of through the driver's
 * `Long` objects. Text values stay strings (the driver's UTF-8 encoding is as cheap as ours).
 */
export function eventInsertParams(
  e: UsageEvent,
  layout: EventLayout,
  key: PartitionKeyBytes,
  ttl: Buffer,
): unknown[] {
  const at = e.occurredAt.getTime();
  return compactRows(layout)
    ? [key.bucket, key.day, key.shard, int64(at), e.eventId, eventPayload(e), ttl, int64(at * 1000)]
    : [
        key.bucket,
        key.day,
        key.shard,
        int64(at),
        e.eventId,
        e.bucket,
        e.kind,
        e.bytes,
        e.objects ?? null,
        e.source,
        e.sourceHost,
        ttl,
        int64(at * 1000),
      ];
}

/** A uuid column's value in wire form: the 16 bytes of its canonical text. */
export function uuidBytes(uuid: string): Buffer {
  return types.Uuid.fromString(uuid).getBuffer();
}

/** A CQL `int` in wire form: 4 bytes, big-endian two's complement. */
export function int32(n: number): Buffer {
  const b = Buffer.allocUnsafe(4);
  b.writeInt32BE(n, 0);
  return b;
}

/** A CQL `timestamp`/`bigint` in wire form: 8 bytes, big-endian two's complement (|n| < 2^53). */
export function int64(n: number): Buffer {
  const b = Buffer.allocUnsafe(8);
  const high = Math.floor(n / 4294967296);
  b.writeInt32BE(high, 0);
  b.writeUInt32BE(n - high * 4294967296, 4);
  return b;
}

/** A `usage_events` row (either format) as a UsageEvent. */
export function eventOfRow(row: types.Row): UsageEvent {
  const payload = row['payload'] as string | null | undefined;
  const key = {
    bucketId: String(row['bucket_id']),
    eventId: row['event_id'] as string,
    occurredAt: row['occurred_at'] as Date,
  };
  if (payload !== null && payload !== undefined) {
    const [kind, bytes, objects, source, sourceHost, bucket] = JSON.parse(payload) as [
      string,
      number,
      number | null,
      string,
      string,
      string,
    ];
    return { ...key, bucket, kind, bytes, ...(objects === null ? {} : { objects }), source, sourceHost };
  }
  const objects = row['objects'] as types.Long | null;
  return {
    ...key,
    bucket: row['bucket'] as string,
    kind: row['kind'] as string,
    bytes: Number(row['bytes']),
    ...(objects === null || objects === undefined ? {} : { objects: Number(objects) }),
    source: row['source'] as string,
    sourceHost: row['source_host'] as string,
  };
}
