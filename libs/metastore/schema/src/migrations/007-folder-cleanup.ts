import { Migration } from '../migration';

/**
 * The empty-directory cleanup (seed 000): Bloom filters of non-empty directories, built by each
 * scanner over its local token ranges, and the bookkeeping of their generations.
 *
 * - `folder_filter_generations` — one row per generation in one partition, newest first. A
 *   generation fixes the filter's shape (bits, hashes) for every host, so that their filters can
 *   be ORed; it is opened with `INSERT ... IF NOT EXISTS` by whichever scanner is due first, the
 *   others read it. Readers read the head (`LIMIT 1`).
 * - `folder_filter_hosts` — per generation, one row per scanner (`source`): its build, whole-row
 *   INSERTs only (`complete` with the chunk count once every chunk is written).
 * - `folder_filter_chunks` — the serialized filter of one host in chunks, each its own partition
 *   (a filter can reach hundreds of MB; no wide partition, no range read over chunks). A chunk
 *   is read only after its host row says `complete`.
 * - `folder_cleanup_passes` — per generation, one row per scanner: the result of its scan of the
 *   folder tables against that generation (JSON counters, or why it skipped). The directories it
 *   counted size the next generation; the admin view reads it.
 *
 * Nothing is ever deleted explicitly: every row carries the tables' TTL and expires whole (every
 * write is a whole-row INSERT, seed 004), old generations and their chunks disappear by
 * themselves; nothing reads an expired row range (readers address generations by number).
 */
export const folderCleanup: Migration = {
  version: 7,
  name: 'folder-cleanup',
  statements: [
    `CREATE TABLE IF NOT EXISTS {ks}.folder_filter_generations (
       scope text,
       generation int,
       bits bigint,
       hashes int,
       capacity bigint,
       fpr double,
       created_at timestamp,
       PRIMARY KEY (scope, generation)
     ) WITH CLUSTERING ORDER BY (generation DESC)
       AND default_time_to_live = 2592000`,
    `CREATE TABLE IF NOT EXISTS {ks}.folder_filter_hosts (
       generation int,
       source text,
       complete boolean,
       chunks int,
       keys bigint,
       set_bits bigint,
       started_at timestamp,
       completed_at timestamp,
       PRIMARY KEY (generation, source)
     ) WITH default_time_to_live = 1209600`,
    `CREATE TABLE IF NOT EXISTS {ks}.folder_filter_chunks (
       generation int,
       source text,
       seq int,
       data blob,
       PRIMARY KEY ((generation, source, seq))
     ) WITH default_time_to_live = 1209600
       AND gc_grace_seconds = 3600`,
    `CREATE TABLE IF NOT EXISTS {ks}.folder_cleanup_passes (
       generation int,
       source text,
       stat text,
       finished_at timestamp,
       PRIMARY KEY (generation, source)
     ) WITH default_time_to_live = 1209600`,
  ],
};
