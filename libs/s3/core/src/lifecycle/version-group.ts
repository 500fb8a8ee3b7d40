import type { BucketVersioning, ObjectVersion, VersionGroup } from '@ostore/lifecycle/rules';
import type { VersionRow } from '@ostore/metastore/data-access';
import { publicVersionIdOf } from '../version-ids';

/** The key's rows as S3 shows them, in the rule engine's terms. */
export interface GroupView {
  group: VersionGroup;
  /** The current version (the newest row) unless the newest row is a ghost (nothing current). */
  current?: VersionRow;
  /** Rows as listed by ListObjectVersions, newest first: no ghost, one null row at most. */
  visible: VersionRow[];
  /** Null rows below the newest null row: replaced, awaiting convergence, never shown. */
  staleNulls: VersionRow[];
}

/**
 * Builds the rule engine's group from the rows of one key (newest first), as readers see them:
 * only the newest null row of a key counts (older ones are being converged away), a ghost hides
 * the null version beneath it and is itself invisible, and only the newest row can be current.
 * `extra` is a row read separately because it lay beyond the rows read (then `complete` is false).
 */
export function versionGroupOf(
  key: string,
  versioning: string,
  rows: readonly VersionRow[],
  complete: boolean,
  tags: ReadonlyMap<string, Record<string, string>> = new Map(),
  extra?: VersionRow,
): GroupView {
  const visible: VersionRow[] = [];
  const staleNulls: VersionRow[] = [];
  let seenNull = false;
  const all = extra && !rows.some((r) => r.vid === extra.vid) ? [...rows, extra] : [...rows];
  for (const row of all) {
    if (row.isNull) {
      if (seenNull) {
        staleNulls.push(row);
        continue;
      }
      seenNull = true;
    }
    if (!row.isGhost) visible.push(row);
  }
  const newest = all[0];
  const current = newest && !newest.isGhost ? newest : undefined;
  const versions: ObjectVersion[] = visible.map((r) => ({
    versionId: publicVersionIdOf(r),
    isLatest: r === current,
    isDeleteMarker: r.isDeleteMarker,
    size: r.isDeleteMarker ? 0 : r.size,
    lastModified: r.lastModified,
    storageClass: r.storageClass,
    ...(r.isDeleteMarker ? {} : { tags: tags.get(r.vid) ?? {} }),
  }));
  return {
    group: {
      key,
      versioning: versioningOf(versioning),
      versions,
      keptAll: complete,
    },
    current,
    visible,
    staleNulls,
  };
}

function versioningOf(v: string): BucketVersioning {
  return v === 'Enabled' || v === 'Suspended' ? v : 'Unversioned';
}
