/**
 * One immutable usage event as the stats store keeps it: a change of a bucket's bytes and objects.
 * For one `eventId` the time and the payload never change (the producer's contract); a
 * correction is a new event.
 */
export interface UsageEvent {
  bucketId: string;
  eventId: string;
  occurredAt: Date;
  bucket: string;
  kind: string;
  bytes: number;
  /** Objects added or removed; absent when the emitter did not know. */
  objects?: number;
  source: string;
  sourceHost: string;
}

/** Store order of events: by time, then by id (the clustering order of a partition). */
export function compareEvents(
  a: Pick<UsageEvent, 'occurredAt' | 'eventId'>,
  b: Pick<UsageEvent, 'occurredAt' | 'eventId'>,
): number {
  const dt = a.occurredAt.getTime() - b.occurredAt.getTime();
  if (dt !== 0) return dt;
  return a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0;
}

/** Sums of a set of events: what an aggregate, a total or a current-usage answer holds. */
export interface UsageSums {
  bytes: number;
  objects: number;
  events: number;
}

/** The empty sum. */
export const NO_USAGE: UsageSums = Object.freeze({ bytes: 0, objects: 0, events: 0 });

/** `a + b`. */
export function addSums(a: UsageSums, b: UsageSums): UsageSums {
  return { bytes: a.bytes + b.bytes, objects: a.objects + b.objects, events: a.events + b.events };
}
