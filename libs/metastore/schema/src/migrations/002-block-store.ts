import { Migration } from '../migration';

/**
 * Internal tables of the block store (libs/storage/blocks).
 *
 * `block_refs` — one partition per block: its status as STATIC columns and one clustering row per
 * reference. Keeping both in one partition is what lets a single Paxos compare-and-set (LWT) decide
 * "delete only if nothing refers to it" against a concurrent "add a reference" (CopyObject shares
 * blocks): `version` is bumped by every transition and every new reference, and both sides
 * condition on it. Status writes always rewrite every static column in one statement: with the
 * in-flight TTL for 'writing'/'deleting', with `USING TTL 0` for 'committed'. `is_alive = true` is
 * written by each of them; a status whose `is_alive` is gone (TTL expired under a partial update,
 * seed 004) is never trusted.
 *
 * `blocks_in_flight` — the GC's index of blocks that may become garbage: an entry is written before
 * a block's bytes and before any reference is released, bucketed by (shard, hour of creation),
 * with a TTL far longer than the in-flight status TTL so the GC finds a block after its status row
 * expired. Never deleted (no tombstones in the partitions the GC scans): entries expire, TWCS drops
 * whole expired SSTables, and the GC records finished buckets in `block_gc_progress` instead.
 * gc_grace is short because nothing is ever deleted explicitly here — only TTL expiry.
 *
 * `block_chunks` — the bytes of the Cassandra block store: one row per chunk (≤ 1 MiB), and the
 * block's size and chunk size as statics written after the last chunk (the completion marker).
 * A deleted block is one partition tombstone.
 */
export const blockStore: Migration = {
  version: 2,
  name: 'block-store',
  statements: [
    `CREATE TABLE IF NOT EXISTS {ks}.block_refs (
       block_id text,
       ref text,
       added_at timestamp,
       status text static,
       is_alive boolean static,
       version int static,
       md5 text static,
       size bigint static,
       tier text static,
       created_at timestamp static,
       PRIMARY KEY (block_id, ref)
     )`,
    `CREATE TABLE IF NOT EXISTS {ks}.blocks_in_flight (
       shard int,
       hour_bucket int,
       block_id text,
       reason text,
       tier text,
       size bigint,
       created_at timestamp,
       PRIMARY KEY ((shard, hour_bucket), block_id)
     ) WITH compaction = {'class': 'TimeWindowCompactionStrategy', 'compaction_window_unit': 'HOURS', 'compaction_window_size': 6}
       AND gc_grace_seconds = 10800`,
    `CREATE TABLE IF NOT EXISTS {ks}.block_gc_progress (
       scope text,
       hour_bucket int,
       shard int,
       done_at timestamp,
       PRIMARY KEY (scope, hour_bucket, shard)
     ) WITH gc_grace_seconds = 10800`,
    `CREATE TABLE IF NOT EXISTS {ks}.block_chunks (
       block_id text,
       chunk_index int,
       data blob,
       size bigint static,
       chunk_size int static,
       PRIMARY KEY (block_id, chunk_index)
     )`,
  ],
};
