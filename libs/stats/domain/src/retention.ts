/** Cassandra's largest TTL (20 years). */
export const MAX_TTL_SECONDS = 20 * 365 * 24 * 60 * 60;

/**
 * Seconds left until an item's original deadline (`occurredAt + retention`), as a Cassandra TTL,
 * or `undefined` when the deadline has passed and the item must not be written at all.
 *
 * The TTL depends only on the deadline and now, never on when the item was first seen: a retry
 * or a replay a day later writes a TTL a day shorter, so it never extends retention (seed 003).
 * Rounded down, so the stored expiry is never later than the deadline.
 */
export function remainingTtlSeconds(
  occurredAt: Date,
  retentionSeconds: number,
  now: Date,
): number | undefined {
  const deadlineMs = occurredAt.getTime() + retentionSeconds * 1000;
  const ttl = Math.floor((deadlineMs - now.getTime()) / 1000);
  if (ttl < 1) return undefined;
  return Math.min(ttl, MAX_TTL_SECONDS);
}
