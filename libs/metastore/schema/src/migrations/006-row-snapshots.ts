import { Migration } from '../migration';

/**
 * GET and HEAD of a small object in ONE Cassandra read: the `versions` row itself carries
 * - `inline_body`: the whole body of an inline-stored object up to the gateway's row threshold
 *   (S3 core setting `rowBodyMaxBytes`, 8 KiB by default). Such a body is stored only there (not
 *   in `version_meta.inline_body`), written once with the row and deleted with it;
 * - `meta_snapshot`: a copy of the version's metadata as written. `version_meta` stays the
 *   authoritative record: the snapshot is only ever removed (a cell tombstone, never a live write),
 *   before any change to the version's tags or ACL, so it can neither resurrect a deleted row nor
 *   outlive a change. Absent snapshot: read `version_meta` as before. Format: meta-snapshot.ts of
 *   @ostore/metastore/data-access.
 */
export const rowSnapshots: Migration = {
  version: 6,
  name: 'row-snapshots',
  statements: [
    `ALTER TABLE {ks}.versions ADD IF NOT EXISTS meta_snapshot blob`,
    `ALTER TABLE {ks}.versions ADD IF NOT EXISTS inline_body blob`,
  ],
};
