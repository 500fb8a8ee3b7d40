import { Migration } from '../migration';

/**
 * A bucket's CORS configuration: `buckets.cors` holds the validated rules in their stored form
 * (`encodeStoredCors` of @ostore/s3/protocol, the one writer and reader), null when none is set.
 * It lives in the bucket row because every request with an Origin header needs it and the row is
 * already read (and cached) for the access check.
 */
export const bucketCors: Migration = {
  version: 12,
  name: 'bucket-cors',
  statements: [`ALTER TABLE {ks}.buckets ADD IF NOT EXISTS cors text`],
};
