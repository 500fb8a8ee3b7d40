import { Migration } from '../migration';

/** Internal tables of the block store: block status (in-flight blocks carry a TTL) and block references. */
export const blockStore: Migration = {
  version: 2,
  name: 'block-store',
  statements: [
    `CREATE TABLE IF NOT EXISTS {ks}.block_status (
       block_id text PRIMARY KEY,
       md5 text,
       status text,
       size bigint,
       tier text,
       created_at timestamp,
       is_alive boolean
     )`,
    `CREATE TABLE IF NOT EXISTS {ks}.block_refs (
       block_id text,
       ref text,
       created_at timestamp,
       PRIMARY KEY (block_id, ref)
     )`,
  ],
};
