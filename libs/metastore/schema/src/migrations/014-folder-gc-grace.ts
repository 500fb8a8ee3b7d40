import { Migration } from '../migration';

/** The three folder index tables, whose rows the empty-directory cleanup deletes. */
const FOLDER_TABLES = ['object_folders', 'version_folders', 'upload_folders'] as const;

/**
 * A short `gc_grace_seconds` (3 h instead of Cassandra's 10 days) on the folder index tables, so
 * that the tombstones the empty-directory cleanup leaves in a parent's partition are purged by the
 * first compaction after 3 h instead of being read by every listing of that parent for 10 days
 * (measured: 10,000 cleaned children kept a delimiter listing at 3.44× a clean parent's until
 * compaction; tools/bench/folders/RESULTS.md).
 *
 * Why a shorter grace is safe here, and not for `objects` or `versions`: gc_grace only bounds how
 * long a replica that missed a delete may stay out of sync before the delete can be forgotten; past
 * it, repair or read repair can bring the deleted row back (resurrection). A folder row is derived
 * data: a resurrected row of an empty directory is never returned by a listing (a listing returns a
 * directory only when a key lies below it, `hasAny` in `libs/s3/core/src/listing/tree-walker.ts`) and the
 * next cleanup cycle finds it empty and deletes it again. The reverse, a live row lost, cannot come
 * from a short grace (a purged tombstone never hides a write). The folder-row cache contract
 * (`libs/s3/core/src/folder-cache.ts`) is about write *timestamps*, which gc_grace does not change.
 *
 * 3 h = Cassandra's default `max_hint_window`: hints live at most gc_grace, so a shorter grace
 * would also drop hints of folder-row *inserts* sooner than for any other table (repair still
 * restores them, but a listing at QUORUM with two replicas down past the window could miss a live
 * directory until then). Repair needs no change: a resurrected row is harmless, so the repair
 * interval does not have to stay under gc_grace for these tables (docs/architecture.md).
 */
export const folderGcGrace: Migration = {
  version: 14,
  name: 'folder-gc-grace',
  statements: FOLDER_TABLES.map((t) => `ALTER TABLE {ks}.${t} WITH gc_grace_seconds = 10800`),
};
