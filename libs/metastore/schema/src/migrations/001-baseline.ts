import { Migration } from '../migration';

/**
 * The six kinds of metastore data (seed 000). Versions, index tables and uploads are
 * partitioned by (bucket_id, parent directory) so that a delimiter listing reads one partition
 * per level; the price is that one huge directory is one huge partition.
 */
export const baseline: Migration = {
  version: 1,
  name: 'baseline',
  statements: [
    // 5. bucket settings
    `CREATE TABLE IF NOT EXISTS {ks}.buckets (
       name text PRIMARY KEY,
       bucket_id uuid,
       owner_id text,
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
    // 1. versions and their blocks: all versions of one object adjacent, newest first
    `CREATE TABLE IF NOT EXISTS {ks}.versions (
       bucket_id uuid,
       parent text,
       name text,
       vts bigint,
       vid timeuuid,
       version_id text,
       is_delete_marker boolean,
       size bigint,
       etag text,
       last_modified timestamp,
       storage_class text,
       owner_id text,
       part_count int,
       PRIMARY KEY ((bucket_id, parent), name, vts, vid)
     ) WITH CLUSTERING ORDER BY (name ASC, vts DESC, vid ASC)`,
    `CREATE TABLE IF NOT EXISTS {ks}.version_blocks (
       vid timeuuid,
       seq int,
       block_id text,
       block_offset bigint,
       size bigint,
       part_number int,
       PRIMARY KEY (vid, seq)
     )`,
    // 2. version metadata
    `CREATE TABLE IF NOT EXISTS {ks}.version_meta (
       vid timeuuid PRIMARY KEY,
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
    // 3. multipart uploads and parts
    `CREATE TABLE IF NOT EXISTS {ks}.uploads (
       bucket_id uuid,
       parent text,
       name text,
       upload_id timeuuid,
       initiated timestamp,
       owner_id text,
       storage_class text,
       meta text,
       PRIMARY KEY ((bucket_id, parent), name, upload_id)
     ) WITH CLUSTERING ORDER BY (name ASC, upload_id ASC)`,
    `CREATE TABLE IF NOT EXISTS {ks}.upload_parts (
       upload_id timeuuid,
       part_number int,
       pid timeuuid,
       size bigint,
       etag text,
       last_modified timestamp,
       checksums map<text, text>,
       PRIMARY KEY (upload_id, part_number, pid)
     ) WITH CLUSTERING ORDER BY (part_number ASC, pid DESC)`,
    // 4. index tables, partitioned by parent directory
    `CREATE TABLE IF NOT EXISTS {ks}.objects (
       bucket_id uuid,
       parent text,
       name text,
       vid timeuuid,
       version_id text,
       size bigint,
       etag text,
       last_modified timestamp,
       storage_class text,
       owner_id text,
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
  ],
};
