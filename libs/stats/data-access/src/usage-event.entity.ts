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

/** The bound values of `eventInsert` for one event. */
export function eventInsertParams(
  e: UsageEvent,
  layout: EventLayout,
  day: number,
  shard: number,
  ttl: number,
): unknown[] {
  const fields = compactRows(layout)
    ? [eventPayload(e)]
    : [e.bucket, e.kind, e.bytes, e.objects ?? null, e.source, e.sourceHost];
  return [e.bucketId, day, shard, e.occurredAt, e.eventId, ...fields, ttl, e.occurredAt.getTime() * 1000];
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
