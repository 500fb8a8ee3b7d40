import { types } from 'cassandra-driver';
import { UsageEvent } from '@ostore/stats/domain';

/** The columns of `usage_events` a reader selects, in order. */
export const EVENT_COLUMNS =
  'occurred_at, event_id, bucket_id, bucket, kind, bytes, objects, source, source_host';

/** A `usage_events` row as a UsageEvent. */
export function eventOfRow(row: types.Row): UsageEvent {
  const objects = row['objects'] as types.Long | null;
  return {
    bucketId: String(row['bucket_id']),
    eventId: row['event_id'] as string,
    occurredAt: row['occurred_at'] as Date,
    bucket: row['bucket'] as string,
    kind: row['kind'] as string,
    bytes: Number(row['bytes']),
    ...(objects === null || objects === undefined ? {} : { objects: Number(objects) }),
    source: row['source'] as string,
    sourceHost: row['source_host'] as string,
  };
}
