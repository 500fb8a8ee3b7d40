import type { NullRowRef, VersionLocator } from '@ostore/metastore/data-access';

/**
 * The null rows of one key (newest first, as `null_versions` returns them) that its null-version
 * convergence removes: all but the newest. When the caller's own row `own` is missing from the
 * read while an older row is first — a ghost whose TTL ran out between its landing and the read
 * (a stall longer than the TTL), or a row someone already removed — that first row is older than
 * a version that replaced it, so it goes too; otherwise the deleted object would come back once
 * its ghost is gone. A missing `own` behind a newer first row (a racing newer writer that removed
 * ours) changes nothing.
 */
export function staleNullRows(rows: readonly NullRowRef[], own?: Pick<VersionLocator, 'vts' | 'vid'>): NullRowRef[] {
  if (own && rows.length > 0 && rows[0].vts < own.vts && !rows.some((r) => r.vid === own.vid)) return rows.slice();
  return rows.slice(1);
}
