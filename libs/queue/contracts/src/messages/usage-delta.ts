import { z } from 'zod';
import { defineContract, fields, instantOf } from './message-contract';

/**
 * One change of a bucket's usage — to the `usage` queue, summed by stats into 5-minute windows.
 * `eventId` makes it idempotent: the queue delivers at least once, and stats count an event id
 * once.
 */
export interface UsageDelta {
  bucketId: string;
  bucket: string;
  /** Bytes added (store, copy: positive) or released (remove: negative). */
  bytes: number;
  /** Objects added (positive) or removed (negative). */
  objects: number;
  at: Date;
  /** Unique id of the source event, for deduplication. */
  eventId: string;
}

const wireV1 = z
  .object({
    bucketId: fields.bucketId,
    bucket: fields.bucket,
    bytes: fields.safeInt,
    objects: fields.safeInt,
    at: fields.instant,
    eventId: fields.opaqueId,
  })
  .strict();

/** Contract of the `usage` queue. */
export const UsageDelta = defineContract<UsageDelta, typeof wireV1>({
  name: 'UsageDelta',
  version: 1,
  wire: wireV1,
  encode: (d) => ({
    bucketId: d.bucketId,
    bucket: d.bucket,
    bytes: d.bytes,
    objects: d.objects,
    at: instantOf(d.at),
    eventId: d.eventId,
  }),
});
