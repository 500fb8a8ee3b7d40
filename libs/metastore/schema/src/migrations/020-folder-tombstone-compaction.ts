import { Migration } from '../migration';

/** The three folder index tables, whose rows the empty-directory cleanup deletes. */
const FOLDER_TABLES = ['object_folders', 'version_folders', 'upload_folders'] as const;

/**
 * Single-sstable tombstone compactions on the folder index tables after 3 h instead of 1 day.
 *
 * Migration 014 lets a compaction purge the cleanup's tombstones 3 h after the deletions
 * (`gc_grace_seconds`); until one runs, a delimiter listing of a cleaned parent still skips them
 * (measured: 50,000 cleaned children listed at 13.7× a clean parent right after the cleanup and at
 * 0.997× after a compaction, tools/bench/folders/RESULTS.md). A folder table that takes few writes
 * may see no size-tiered compaction for weeks; Cassandra then compacts an sstable alone when more
 * than `tombstone_threshold` (0.2) of it is droppable tombstones, but only once the sstable is
 * older than `tombstone_compaction_interval` (1 day by default). 3 h (= gc_grace) bounds how long a
 * cleaned parent pays for its tombstones by about 6 h instead of more than a day;
 * `unchecked_tombstone_compaction` lets that compaction run even when the sstable overlaps others
 * (the cleanup's tombstones usually sit in the same partitions as older live rows), which costs at
 * most a useless rewrite of one sstable per interval.
 *
 * The class stays Cassandra's default, size-tiered, which these tables had implicitly.
 */
export const folderTombstoneCompaction: Migration = {
  version: 20,
  name: 'folder-tombstone-compaction',
  statements: FOLDER_TABLES.map(
    (t) =>
      `ALTER TABLE {ks}.${t} WITH compaction = {'class': 'SizeTieredCompactionStrategy', 'tombstone_compaction_interval': '10800', 'unchecked_tombstone_compaction': 'true'}`,
  ),
};
