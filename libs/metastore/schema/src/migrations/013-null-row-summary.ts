import { Migration } from '../migration';

/**
 * The `null_versions` mirror of a null version row carries what removing that version needs, so
 * that the writer of the next null version (VersionStore.convergeNulls) removes the previous one
 * from its one read of `null_versions`, without reading the old `versions` row (and its body):
 * - `size`, `is_delete_marker`, `is_ghost`: copied from the row (the usage to report, and whether
 *   there is anything to release);
 * - `body_in_row`: the body lives in the row itself (then there are no blocks to read or release).
 * Written with the row, in the same mutation, at the same timestamp and TTL; never updated. A
 * mirror written before this migration has them null: its row is read as before.
 */
export const nullRowSummary: Migration = {
  version: 13,
  name: 'null-row-summary',
  statements: [
    `ALTER TABLE {ks}.null_versions ADD IF NOT EXISTS size bigint`,
    `ALTER TABLE {ks}.null_versions ADD IF NOT EXISTS is_delete_marker boolean`,
    `ALTER TABLE {ks}.null_versions ADD IF NOT EXISTS is_ghost boolean`,
    `ALTER TABLE {ks}.null_versions ADD IF NOT EXISTS body_in_row boolean`,
  ],
};
