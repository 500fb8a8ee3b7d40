import { Migration } from '../migration';

/**
 * A copy of a version's metadata (and of its body, when small and inline) in the `versions` row
 * itself, so that GET and HEAD of the current version make ONE Cassandra read instead of two
 * (the row, then `version_meta` by vid). `version_meta` stays the authoritative record: the
 * snapshot is written once with the row and only ever removed (a cell tombstone, never a live
 * write), before any change to the version's tags or ACL, so it can neither resurrect a deleted
 * row nor outlive a change. Absent snapshot: read `version_meta` as before. See
 * @ostore/metastore/data-access meta-snapshot.ts for its format.
 */
export const rowSnapshots: Migration = {
  version: 6,
  name: 'row-snapshots',
  statements: [`ALTER TABLE {ks}.versions ADD IF NOT EXISTS meta_snapshot blob`],
};
