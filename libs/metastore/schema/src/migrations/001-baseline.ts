import { Migration } from '../migration';

/**
 * The six kinds of metastore data (seed 000). Versions, index tables and uploads are
 * partitioned by (bucket_id, parent directory) so that a delimiter listing reads one partition
 * per level; the price is that one huge directory is one huge partition.
 *
 * Conventions every writer must keep (see @ostore/metastore/data-access for the why):
 * - `parent` is the key up to and including its last '/', `name` the rest ('' for the root, and
 *   `name` may be '' for keys ending in '/'); key = parent + name.
 * - Folder rows store the child segment WITH its trailing '/' (`cats/`), so that Cassandra's
 *   clustering order (UTF-8 bytes) of folder rows equals the order of the keys below them and a
 *   directory partition merges with its object rows by plain string order.
 * - `vts` is the version timestamp (microseconds, unique per process) that orders the versions of
 *   a key; it is also the write timestamp of the `objects` row and of its deletions. `vid` is a
 *   time-based uuid whose time is `vts` (so a version id alone locates its row).
 * - Bucket data is keyed by `bucket_id`, never by name: a bucket re-created under the same name
 *   gets a new id and never sees the old one's leftovers.
 */
export const baseline: Migration = {
  version: 1,
  name: 'baseline',
  statements: [
    // 5. bucket settings. The name is global: creation is `INSERT ... IF NOT EXISTS`.
    `CREATE TABLE IF NOT EXISTS {ks}.buckets (
       name text PRIMARY KEY,
       bucket_id uuid,
       owner_id text,
       owner_name text,
       created_at timestamp,
       location text,
       versioning text,
       acl text,
       lifecycle text,
       tags map<text, text>,
       quota_bytes bigint,
       quota_objects bigint,
       state text
     )`,
    `CREATE TABLE IF NOT EXISTS {ks}.buckets_by_owner (
       owner_id text,
       name text,
       bucket_id uuid,
       created_at timestamp,
       PRIMARY KEY (owner_id, name)
     )`,
    // 1. versions: all versions of one object adjacent, newest first. Markers and "ghosts"
    //    (the invisible null delete markers of unversioned buckets, written with a TTL) are rows too.
    `CREATE TABLE IF NOT EXISTS {ks}.versions (
       bucket_id uuid,
       parent text,
       name text,
       vts bigint,
       vid timeuuid,
       is_null boolean,
       is_delete_marker boolean,
       is_ghost boolean,
       size bigint,
       etag text,
       last_modified timestamp,
       storage_class text,
       owner_id text,
       owner_name text,
       part_count int,
       PRIMARY KEY ((bucket_id, parent), name, vts, vid)
     ) WITH CLUSTERING ORDER BY (name ASC, vts DESC, vid DESC)`,
    // the rows of versions that are null versions (same order): finds them without reading a
    // long versioned history; written in the same partition mutation as the version row
    `CREATE TABLE IF NOT EXISTS {ks}.null_versions (
       bucket_id uuid,
       parent text,
       name text,
       vts bigint,
       vid timeuuid,
       PRIMARY KEY ((bucket_id, parent), name, vts, vid)
     ) WITH CLUSTERING ORDER BY (name ASC, vts DESC, vid DESC)`,
    // the manifest of a version: its blocks in order (part_number for multipart objects)
    `CREATE TABLE IF NOT EXISTS {ks}.version_blocks (
       vid timeuuid,
       seq int,
       block_id text,
       tier text,
       size bigint,
       part_number int,
       PRIMARY KEY (vid, seq)
     )`,
    // 2. version metadata, with where the version lives (lets a checker tell an orphan manifest)
    `CREATE TABLE IF NOT EXISTS {ks}.version_meta (
       vid timeuuid PRIMARY KEY,
       bucket_id uuid,
       parent text,
       name text,
       vts bigint,
       content_type text,
       content_encoding text,
       content_language text,
       content_disposition text,
       cache_control text,
       expires text,
       user_meta map<text, text>,
       tags map<text, text>,
       acl text,
       checksums map<text, text>
     )`,
    // 3. multipart uploads and parts. A completed upload's row is rewritten whole with a TTL
    //    (completed = true) so that a retried CompleteMultipartUpload can still answer.
    `CREATE TABLE IF NOT EXISTS {ks}.uploads (
       bucket_id uuid,
       parent text,
       name text,
       upload_id timeuuid,
       initiated timestamp,
       owner_id text,
       owner_name text,
       storage_class text,
       meta text,
       checksum_algorithm text,
       completing_vid timeuuid,
       completing_parts text,
       completed boolean,
       PRIMARY KEY ((bucket_id, parent), name, upload_id)
     ) WITH CLUSTERING ORDER BY (name ASC, upload_id ASC)`,
    // one row per upload of a part; the newest pid of a part number is the part
    `CREATE TABLE IF NOT EXISTS {ks}.upload_parts (
       upload_id timeuuid,
       part_number int,
       pid timeuuid,
       size bigint,
       etag text,
       last_modified timestamp,
       checksums map<text, text>,
       blocks text,
       PRIMARY KEY (upload_id, part_number, pid)
     ) WITH CLUSTERING ORDER BY (part_number ASC, pid DESC)`,
    // 4. index tables, partitioned by parent directory. The current object of a key is ONE cell
    //    (entry: hex vid + JSON), so that two writes with equal timestamps can never mix columns.
    //    `cond` is the short-lived LWT claim of a conditional PUT (If-None-Match / If-Match).
    `CREATE TABLE IF NOT EXISTS {ks}.objects (
       bucket_id uuid,
       parent text,
       name text,
       entry text,
       cond text,
       PRIMARY KEY ((bucket_id, parent), name)
     )`,
    `CREATE TABLE IF NOT EXISTS {ks}.object_folders (
       bucket_id uuid, parent text, name text, created_at timestamp,
       PRIMARY KEY ((bucket_id, parent), name)
     )`,
    `CREATE TABLE IF NOT EXISTS {ks}.version_folders (
       bucket_id uuid, parent text, name text, created_at timestamp,
       PRIMARY KEY ((bucket_id, parent), name)
     )`,
    `CREATE TABLE IF NOT EXISTS {ks}.upload_folders (
       bucket_id uuid, parent text, name text, created_at timestamp,
       PRIMARY KEY ((bucket_id, parent), name)
     )`,
    // 6. internal tables
    `CREATE TABLE IF NOT EXISTS {ks}.locks (
       name text PRIMARY KEY,
       owner text,
       acquired_at timestamp
     )`,
    // users and access keys (gateway auth)
    `CREATE TABLE IF NOT EXISTS {ks}.users (
       user_id text PRIMARY KEY,
       display_name text,
       created_at timestamp,
       disabled boolean
     )`,
    `CREATE TABLE IF NOT EXISTS {ks}.access_keys (
       access_key_id text PRIMARY KEY,
       secret text,
       user_id text,
       created_at timestamp,
       disabled boolean
     )`,
    `CREATE TABLE IF NOT EXISTS {ks}.access_keys_by_user (
       user_id text,
       access_key_id text,
       created_at timestamp,
       PRIMARY KEY (user_id, access_key_id)
     )`,
  ],
};
