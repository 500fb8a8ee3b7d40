import { Migration } from '../migration';

/**
 * Encryption at rest. `version_meta.sse` holds how a version's body is encrypted (the stored record
 * of @ostore/s3/crypto: the SSE-S3 data key wrapped by a master key with its id, or the SSE-C salt
 * and salted HMAC of the customer key; null for a plain body); it also travels in the row's
 * metadata snapshot. `buckets.encryption` holds the bucket's default encryption (stored form of
 * @ostore/s3/crypto's bucket-encryption), null when none is set.
 */
export const encryption: Migration = {
  version: 16,
  name: 'encryption',
  statements: [`ALTER TABLE {ks}.version_meta ADD IF NOT EXISTS sse text`, `ALTER TABLE {ks}.buckets ADD IF NOT EXISTS encryption text`],
};
