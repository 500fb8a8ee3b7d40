import { Migration } from '../migration';

/**
 * Multipart checksum types. `uploads.checksum_type` holds the x-amz-checksum-type chosen at
 * CreateMultipartUpload (COMPOSITE or FULL_OBJECT; null without a checksum algorithm).
 * `version_blocks.part_checksum` holds, on the first block of each part of a multipart object,
 * that part's checksum of the upload's algorithm (left unset elsewhere: no cell, no tombstone).
 * An object's own checksum type needs no column: a COMPOSITE value ends in `-<parts>`.
 */
export const checksumTypes: Migration = {
  version: 23,
  name: 'checksum-types',
  statements: [
    `ALTER TABLE {ks}.uploads ADD IF NOT EXISTS checksum_type text`,
    `ALTER TABLE {ks}.version_blocks ADD IF NOT EXISTS part_checksum text`,
  ],
};
