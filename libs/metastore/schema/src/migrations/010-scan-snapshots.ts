import { Migration } from '../migration';

/**
 * Scan snapshots (seed 000) beyond `scan_state`, which keeps each pass's running `stat`:
 *
 * - `host_snapshots` — the newest COMPLETED snapshot of each scanner host and scanned table, one
 *   partition per scanned keyspace (a handful of rows: hosts × tables), so the stats app reads
 *   every host's latest snapshot in one query. Written whole (INSERT with the table's TTL) when a
 *   pass completes; a host that stops scanning ages out after 7 days.
 * - `bucket_snapshots` — the hosts' snapshots combined per bucket at their common cut, one row per
 *   (bucket, cut), newest first; `stat` is the JSON of @ostore/stats/snapshot's BucketSnapshotCodec.
 * - `snapshot_combinations` — one row per combination, newest first: its cut, the host snapshots
 *   it combined, the buckets it wrote. Written after that combination's bucket rows, so a reader
 *   that takes the newest combination finds all of its buckets; a bucket without a row at that cut
 *   had nothing before it.
 *
 * Rows only expire (TTL, never deleted); readers read partition heads only.
 */
export const scanSnapshots: Migration = {
  version: 10,
  name: 'scan-snapshots',
  statements: [
    `CREATE TABLE IF NOT EXISTS {ks}.host_snapshots (
       ks text,
       source text,
       handler text,
       pass_ts timestamp,
       completed_at timestamp,
       stat text,
       PRIMARY KEY ((ks), source, handler)
     ) WITH default_time_to_live = 604800`,
    `CREATE TABLE IF NOT EXISTS {ks}.bucket_snapshots (
       bucket_id uuid,
       cut timestamp,
       stat text,
       PRIMARY KEY ((bucket_id), cut)
     ) WITH CLUSTERING ORDER BY (cut DESC)
       AND default_time_to_live = 2592000`,
    `CREATE TABLE IF NOT EXISTS {ks}.snapshot_combinations (
       ks text,
       cut timestamp,
       parts list<text>,
       buckets int,
       oldest_completed_at timestamp,
       combined_at timestamp,
       PRIMARY KEY ((ks), cut)
     ) WITH CLUSTERING ORDER BY (cut DESC)
       AND default_time_to_live = 2592000`,
  ],
};
