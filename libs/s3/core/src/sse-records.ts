import type { VersionRow } from '@ostore/metastore/data-access';
import { TreeWalker } from './listing/tree-walker';
import type { VersionStore } from './version-store';

/** What a re-wrap pass over a bucket did. */
export interface RewrapResult {
  /** Versions holding data that were looked at. */
  versions: number;
  /** Of those, the ones whose encryption record was replaced. */
  rewrapped: number;
}

/**
 * Walks every version of a bucket (current and noncurrent, as the quota recount does) and replaces
 * each encryption record `rewrap` answers a new one for (undefined: kept). The stored bodies are
 * not touched: a re-wrapped record holds the same data key. Each change drops the row's metadata
 * snapshot first (see VersionData.updateMeta), so no reader keeps the old record. A version deleted
 * meanwhile is skipped; a pass can be repeated (a record already re-wrapped is left alone).
 */
export async function rewrapBucketRecords(store: VersionStore, bucketId: string, rewrap: (sse: string) => string | undefined): Promise<RewrapResult> {
  const result: RewrapResult = { versions: 0, rewrapped: 0 };
  const walker = new TreeWalker<VersionRow>(store.versionsTree(bucketId).source, { pageSize: 1000 });
  for (let e = await walker.next(); e; e = await walker.next()) {
    if (e.kind !== 'row' || e.row.isDeleteMarker || e.row.isGhost) continue;
    result.versions++;
    const sse = (await store.metaOf(e.row))?.sse;
    const next = sse ? rewrap(sse) : undefined;
    if (next && (await store.updateMeta(e.row, { sse: next }))) result.rewrapped++;
  }
  return result;
}
