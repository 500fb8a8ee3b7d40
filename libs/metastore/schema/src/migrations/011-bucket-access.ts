import { Migration } from '../migration';

/**
 * Bucket access settings on the `buckets` row, so the access check reads them with the bucket it
 * already resolves (and caches) per request: `policy` — the bucket policy JSON exactly as the
 * owner stored it (parsed and validated by `@ostore/s3/policy`); `public_access_block` — the four
 * Public Access Block switches (stored JSON, same owner module); `object_ownership` — the Object
 * Ownership setting. Null means "not configured": no policy, no block, and for ownership the
 * behaviour buckets had before this migration (ObjectWriter: ACLs honoured).
 */
export const bucketAccess: Migration = {
  version: 11,
  name: 'bucket-access',
  statements: [
    `ALTER TABLE {ks}.buckets ADD IF NOT EXISTS policy text`,
    `ALTER TABLE {ks}.buckets ADD IF NOT EXISTS public_access_block text`,
    `ALTER TABLE {ks}.buckets ADD IF NOT EXISTS object_ownership text`,
  ],
};
