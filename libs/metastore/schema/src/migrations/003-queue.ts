import { Migration } from '../migration';

/**
 * The Cassandra-table queue (seed 000's first queue; Kafka is the other implementation, chosen by
 * QUEUE_BACKEND). `queue` is the full topic name `s3-<cluster>-<queue>`, as in Kafka.
 *
 * `queue_messages` — one partition per queue partition, rows ordered by `num`. Rows are never
 * deleted: every insert carries a TTL (`USING TTL`, the queue's retention; the table default
 * is a safety net) and they expire. gc_grace_seconds = 0 is safe here because nothing is ever
 * deleted — an expired cell expires identically on every replica, so there is no tombstone a
 * lagging replica could miss and no data to resurrect — and it lets compaction purge expired
 * rows at once instead of keeping them ten days. Readers always start their slice at their
 * stored offset (`num >= offset LIMIT n`), never at the start of the partition, so the expired
 * rows below the offset are not read. TWCS: rows arrive in time order and expire in time order,
 * so whole SSTables expire and are dropped; SSTables whose num range is below the slice are
 * skipped by their clustering bounds. The price of gc_grace_seconds = 0 is that hints for these
 * tables expire at once: a replica that missed a write catches up through quorum reads (read
 * repair), which is why producers and readers both use a quorum.
 *
 * `queue_heads` — the next `num` of each queue partition; producers reserve a range of nums with
 * a compare-and-set (LWT) on it, so nums never collide and follow reservation order. No TTL:
 * losing the head would restart nums below the readers' offsets.
 *
 * `queue_offsets` — per queue partition and reader group: `offset` (the first num not yet fully
 * processed; never TTL'd, so an idle group never loses its place) and `owner`, the member
 * holding the partition's lease, written `USING TTL` and renewed by heartbeats. Lease and offset
 * share a row so that a commit is `UPDATE ... IF owner = me`: a member that lost its lease can
 * no longer move the offset (fencing). A lease is released by writing an empty owner (taken
 * again with `IF owner IN (null, '')`), itself with a 1 s TTL — never by DELETE.
 *
 * `queue_readers` — live members of a reader group, one row per member written `USING TTL` by
 * its heartbeat; the count sets each member's fair share of partitions. A member that leaves
 * rewrites its row with a 1 s TTL instead of deleting it.
 *
 * `queue_topics` — the partition count of each queue, set once (IF NOT EXISTS) by whichever
 * producer or consumer touches the queue first.
 */
export const queue: Migration = {
  version: 3,
  name: 'queue',
  statements: [
    `CREATE TABLE IF NOT EXISTS {ks}.queue_topics (
       queue text PRIMARY KEY,
       partitions int,
       created_at timestamp
     )`,
    `CREATE TABLE IF NOT EXISTS {ks}.queue_heads (
       queue text,
       part int,
       next bigint,
       PRIMARY KEY ((queue, part))
     )`,
    `CREATE TABLE IF NOT EXISTS {ks}.queue_messages (
       queue text,
       part int,
       num bigint,
       value blob,
       PRIMARY KEY ((queue, part), num)
     ) WITH CLUSTERING ORDER BY (num ASC)
       AND default_time_to_live = 604800
       AND gc_grace_seconds = 0
       AND compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'HOURS', 'compaction_window_size': 6}`,
    `CREATE TABLE IF NOT EXISTS {ks}.queue_offsets (
       queue text,
       part int,
       reader text,
       offset bigint,
       owner text,
       PRIMARY KEY ((queue, part), reader)
     ) WITH gc_grace_seconds = 0`,
    `CREATE TABLE IF NOT EXISTS {ks}.queue_readers (
       queue text,
       reader text,
       member text,
       joined_at timestamp,
       PRIMARY KEY ((queue, reader), member)
     ) WITH default_time_to_live = 60
       AND gc_grace_seconds = 0`,
  ],
};
