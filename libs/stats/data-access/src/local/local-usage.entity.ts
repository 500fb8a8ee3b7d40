import { UsageSums } from '@ostore/stats/domain';

/**
 * The key layout of the stats app's local store (LevelDB through classic-level), its one owner.
 * Keys are UTF-8 strings; numbers are zero-padded so that byte order is time order.
 *
 * - `w|<bucketId>|<windowStart>` → a LocalWindow (JSON): an open 5-minute window's absolute sums.
 * - `w|<bucketId>|<windowStart>|<eventId>` → '': the event-id dedup entries of that window, under
 *   the window's own prefix, so that deleting a window and every entry related to it is one range.
 * - `t|<touchedAt>|<bucketId>|<windowStart>` → '': the timestamp index beside the data (seed 001):
 *   cleanup walks it from the oldest entry instead of scanning the data.
 * - `x|<bucketId>|<windowStart>` → '': a window whose sums are deleted and whose dedup entries are
 *   still being deleted in bounded batches (a crash resumes the cascade from here).
 * - `p|<partition>` → a PartitionMark (JSON): where this store's view of a usage-topic partition ends.
 */
export interface LocalWindow extends UsageSums {
  bucketId: string;
  bucket: string;
  /** Window start, ms since the epoch. */
  start: number;
  /** When a batch last wrote the window (injected clock, ms): the timestamp index's key. */
  touchedAt: number;
  /** The partition lease the sums were built under (see PartitionMark). */
  lease: string;
}

/**
 * A partition's continuity mark. Local sums are trusted only while this store has seen every
 * offset of the partition since it built them: a batch that does not start at `nextOffset`
 * (another process had the partition, a redelivery after a failure, a lost store) starts a new
 * `lease`, and every window built under an older lease is rebuilt from Cassandra before use.
 */
export interface PartitionMark {
  nextOffset: number;
  lease: string;
}

const pad = (n: number) => String(n).padStart(15, '0');

/** Upper bound of every key under a prefix. */
export const PREFIX_END = '\uffff';

/** Key of a window's sums. */
export function windowKey(bucketId: string, start: number): string {
  return `w|${bucketId}|${pad(start)}`;
}

/** Key of one dedup entry. */
export function eventKey(bucketId: string, start: number, eventId: string): string {
  return `${windowKey(bucketId, start)}|${eventId}`;
}

/** First key of a window's dedup entries; they all sort before `eventsEnd`. */
export function eventsStart(bucketId: string, start: number): string {
  return `${windowKey(bucketId, start)}|`;
}

/** End (exclusive) of a window's dedup entries. */
export function eventsEnd(bucketId: string, start: number): string {
  return `${windowKey(bucketId, start)}|${PREFIX_END}`;
}

/** Key of a window's timestamp index entry. */
export function indexKey(touchedAt: number, bucketId: string, start: number): string {
  return `t|${pad(touchedAt)}|${bucketId}|${pad(start)}`;
}

/** End (exclusive) of the index entries touched before `touchedAt`. */
export function indexEnd(touchedAt: number): string {
  return `t|${pad(touchedAt)}`;
}

/** Parses an index key. */
export function parseIndexKey(key: string): { touchedAt: number; bucketId: string; start: number } {
  const [, touchedAt, bucketId, start] = key.split('|');
  return { touchedAt: Number(touchedAt), bucketId, start: Number(start) };
}

/** Key of a window whose cascade deletion is under way. */
export function pendingKey(bucketId: string, start: number): string {
  return `x|${bucketId}|${pad(start)}`;
}

/** Parses a pending-deletion key. */
export function parsePendingKey(key: string): { bucketId: string; start: number } {
  const [, bucketId, start] = key.split('|');
  return { bucketId, start: Number(start) };
}

/** Key of a partition's mark. */
export function partitionKey(partition: number): string {
  return `p|${partition}`;
}
