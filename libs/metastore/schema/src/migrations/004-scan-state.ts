import { Migration } from '../migration';

/**
 * Positions and results of the scanners' passes (seed 000's snapshot table: `source, ks, ts,
 * handler, stat, status`). One partition per (scanner host, scanned keyspace, scanned table), one
 * row per pass, newest first:
 *
 * - `status` — the key the pass has reached (JSON: token, bucket, directory, name) or
 *   `completed`; a restarted scanner reads the newest row (`LIMIT 1`) and continues an unfinished
 *   pass from there.
 * - `stat` — the pass's counters (JSON), e.g. versions read and the versions per bucket that
 *   should already be gone (the early-warning anomaly counter).
 *
 * Every write is a whole-row INSERT with a TTL (never an UPDATE of some columns), so a row never
 * half-expires (seed 004): rows of old passes expire as a whole after 7 days, a pass in progress
 * is rewritten at every checkpoint and so never expires under the scanner. Nothing is ever
 * deleted explicitly. Readers only read the head of the partition (newest first), never the
 * expired tail, and compaction purges it after gc_grace_seconds.
 */
export const scanState: Migration = {
  version: 4,
  name: 'scan-state',
  statements: [
    `CREATE TABLE IF NOT EXISTS {ks}.scan_state (
       source text,
       ks text,
       handler text,
       ts timestamp,
       status text,
       stat text,
       updated_at timestamp,
       PRIMARY KEY ((source, ks, handler), ts)
     ) WITH CLUSTERING ORDER BY (ts DESC)
       AND default_time_to_live = 604800
       AND gc_grace_seconds = 86400`,
  ],
};
