import { Migration } from '../migration';

/**
 * The stats app's immutable usage events and their 5-minute aggregates (seed 003).
 *
 * `usage_events` — one row per event, partition `(bucket_id, day, layout_version, shard)`: a
 * bucket's events of one UTC day spread over the layout's shards (a stable SHA-256 of the event
 * id), so no partition grows without bound and a hot bucket gets more shards through a new layout
 * version. Clustered by `(occurred_at, event_id)`: a time range of a partition is one slice.
 * Every row is written whole, once per delivery, `USING TTL` = the time left until the event's
 * original deadline (occurred_at + retention) and `USING TIMESTAMP` = occurred_at: a replay writes
 * the same cells at the same timestamp with a TTL that can only be shorter, and Cassandra keeps
 * the cell that expires later, so a replay changes neither the row nor its expiry. An event past
 * its deadline is not written. No deletes: rows only expire, and TWCS (1-day windows, one TTL
 * policy for the table) drops whole SSTables once everything in them has expired.
 *
 * `usage_aggregates` — one row per bucket and 5-minute window, partition `(bucket_id, day)`
 * (288 rows at most): the sums of the window's stored events, recomputed from `usage_events`
 * (never incremented), written `USING TIMESTAMP` = the number of events summed, so a sum over
 * more events supersedes one over fewer and a replay that finds the same events rewrites the same
 * cells. TTL from the window's own deadline (window end + aggregate retention).
 *
 * `usage_totals` — a bucket's running total: row `through_window` = the sums of all its
 * aggregates up to and including that window, newest first, so current usage is the head row plus
 * the few aggregates after it (no re-summing from the beginning). A row is a function of the
 * aggregates it covers, written `USING TIMESTAMP` = the number of events it counts: a rewrite over
 * the same aggregates changes nothing, one that includes a late event supersedes. TTL as the
 * aggregates'; readers read the head only.
 */
export const usageEvents: Migration = {
  version: 8,
  name: 'usage-events',
  statements: [
    `CREATE TABLE IF NOT EXISTS {ks}.usage_events (
       bucket_id uuid,
       day int,
       layout_version int,
       shard int,
       occurred_at timestamp,
       event_id text,
       bucket text,
       kind text,
       bytes bigint,
       objects bigint,
       source text,
       source_host text,
       PRIMARY KEY ((bucket_id, day, layout_version, shard), occurred_at, event_id)
     ) WITH CLUSTERING ORDER BY (occurred_at ASC, event_id ASC)
       AND compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'DAYS', 'compaction_window_size': 1}
       AND gc_grace_seconds = 86400`,
    `CREATE TABLE IF NOT EXISTS {ks}.usage_aggregates (
       bucket_id uuid,
       day int,
       window_start timestamp,
       bytes bigint,
       objects bigint,
       events bigint,
       PRIMARY KEY ((bucket_id, day), window_start)
     ) WITH CLUSTERING ORDER BY (window_start ASC)
       AND compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'DAYS', 'compaction_window_size': 7}
       AND gc_grace_seconds = 86400`,
    `CREATE TABLE IF NOT EXISTS {ks}.usage_totals (
       bucket_id uuid,
       through_window timestamp,
       bytes bigint,
       objects bigint,
       events bigint,
       PRIMARY KEY ((bucket_id), through_window)
     ) WITH CLUSTERING ORDER BY (through_window DESC)
       AND gc_grace_seconds = 86400`,
  ],
};
