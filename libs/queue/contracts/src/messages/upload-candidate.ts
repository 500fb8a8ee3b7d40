import { z } from 'zod';
import { defineContract, fields } from './message-contract';

/**
 * "This multipart upload looked old enough for AbortIncompleteMultipartUpload" — to the `uploads`
 * queue. The scheduler re-checks the upload and the rule before aborting it.
 */
export interface UploadCandidate {
  bucketId: string;
  bucket: string;
  key: string;
  uploadId: string;
  ruleId: string;
}

const wireV1 = z
  .object({
    bucketId: fields.bucketId,
    bucket: fields.bucket,
    key: fields.key,
    uploadId: fields.opaqueId,
    ruleId: fields.ruleId,
  })
  .strict();

/** Contract of the `uploads` queue. */
export const UploadCandidate = defineContract<UploadCandidate, typeof wireV1>({
  name: 'UploadCandidate',
  version: 1,
  wire: wireV1,
  encode: (c) => ({
    bucketId: c.bucketId,
    bucket: c.bucket,
    key: c.key,
    uploadId: c.uploadId,
    ruleId: c.ruleId,
  }),
});
