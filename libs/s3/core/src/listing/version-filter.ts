import type { Metastore, VersionRow } from '@ostore/metastore/data-access';
import { splitKey } from '../keys';
import type { RowFilter } from './tree-walker';

/**
 * Which version rows of a key ListObjectVersions shows: every non-null row, and the NEWEST null
 * row unless it is a ghost. Older null rows exist while racing writers converge, after a failed
 * or skipped convergence (S3CoreSettings.nullConvergence 'scan') until the scan's scheduler
 * removes them, and are shadowed. Rows are seen newest first; a walk resumed
 * inside a key first looks up the key's newest null row. The first row of a non-resumed key is
 * its latest version, recorded in `latest`.
 */
export function versionKeyFilter(
  ms: Metastore,
  bucketId: string,
  latest?: Set<VersionRow>,
): (key: string, resumed: boolean) => Promise<RowFilter<VersionRow>> {
  return async (key, resumed) => {
    let newestNullVid: string | undefined;
    let seenNull = false;
    if (resumed) {
      const { parent, name } = splitKey(key);
      newestNullVid = (await ms.versions.nullRows(bucketId, parent, name))[0]?.vid;
      seenNull = true;
    }
    let first = !resumed;
    return (row) => {
      if (first) {
        first = false;
        latest?.add(row);
      }
      if (!row.isNull) return true;
      if (seenNull) return !row.isGhost && row.vid === newestNullVid;
      seenNull = true;
      return !row.isGhost;
    };
  };
}
