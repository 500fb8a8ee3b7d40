import { S3Error } from './errors';
import { HttpHeaders, headerValue } from './headers';

/**
 * Honest refusals: request headers that ask for something this store does not do (server-side
 * encryption, Object Lock) are refused with S3's error instead of being ignored.
 */

/** Operations whose headers may ask for server-side encryption of what they store. */
const SSE_OPERATIONS = new Set(['PutObject', 'CopyObject', 'CreateMultipartUpload']);
/** Operations that take an SSE-C customer key (for what they store). */
const SSE_C_OPERATIONS = new Set(['PutObject', 'CopyObject', 'CreateMultipartUpload', 'UploadPart', 'UploadPartCopy']);
/** Operations that take a customer key for their copy source. */
const COPY_SOURCE_SSE_C_OPERATIONS = new Set(['CopyObject', 'UploadPartCopy']);
/** Operations whose headers may put an Object Lock retention or legal hold on the new version. */
const OBJECT_LOCK_OPERATIONS = new Set(['PutObject', 'CopyObject', 'CreateMultipartUpload']);

const SSE_C_HEADERS = [
  'x-amz-server-side-encryption-customer-algorithm',
  'x-amz-server-side-encryption-customer-key',
  'x-amz-server-side-encryption-customer-key-md5',
];
const COPY_SOURCE_SSE_C_HEADERS = SSE_C_HEADERS.map((h) => h.replace('x-amz-', 'x-amz-copy-source-'));
const KMS_HEADERS = [
  'x-amz-server-side-encryption-aws-kms-key-id',
  'x-amz-server-side-encryption-context',
  'x-amz-server-side-encryption-bucket-key-enabled',
];
const OBJECT_LOCK_HEADERS = ['x-amz-object-lock-mode', 'x-amz-object-lock-retain-until-date', 'x-amz-object-lock-legal-hold'];

const notImplemented = (what: string, header: string) =>
  new S3Error('NotImplemented', `${what} is not implemented: the request was refused and nothing was stored unencrypted`, {
    extra: { Header: header },
  });

/**
 * Refuses encryption and Object Lock headers on the operations they apply to, before anything
 * is stored: SSE-C, SSE-KMS and SSE-S3 (`AES256`) answer NotImplemented until encryption at rest
 * exists (an unknown algorithm is InvalidArgument, as on S3); Object Lock headers answer
 * InvalidRequest, since no bucket has Object Lock enabled. A CreateBucket asking for Object Lock
 * is NotImplemented.
 */
export function refuseUnsupportedHeaders(operation: string, headers: HttpHeaders): void {
  const present = (name: string) => headerValue(headers, name) !== undefined;
  if (operation === 'CreateBucket') {
    const lock = headerValue(headers, 'x-amz-bucket-object-lock-enabled');
    if (lock !== undefined && lock.trim().toLowerCase() === 'true') throw notImplemented('Object Lock', 'x-amz-bucket-object-lock-enabled');
    return;
  }
  if (SSE_C_OPERATIONS.has(operation)) {
    const header = SSE_C_HEADERS.find(present);
    if (header) throw notImplemented('Server-side encryption with customer-provided keys (SSE-C)', header);
  }
  if (COPY_SOURCE_SSE_C_OPERATIONS.has(operation)) {
    const header = COPY_SOURCE_SSE_C_HEADERS.find(present);
    if (header) throw notImplemented('Server-side encryption with customer-provided keys (SSE-C)', header);
  }
  if (SSE_OPERATIONS.has(operation)) {
    const algorithm = headerValue(headers, 'x-amz-server-side-encryption');
    if (algorithm !== undefined) {
      if (algorithm === 'AES256') throw notImplemented('Server-side encryption with store-managed keys (SSE-S3, AES256)', 'x-amz-server-side-encryption');
      if (algorithm === 'aws:kms' || algorithm === 'aws:kms:dsse') throw notImplemented('Server-side encryption with KMS keys (SSE-KMS)', 'x-amz-server-side-encryption');
      throw new S3Error('InvalidArgument', 'The encryption method specified is not supported', {
        extra: { ArgumentName: 'x-amz-server-side-encryption', ArgumentValue: algorithm },
      });
    }
    const kms = KMS_HEADERS.find(present);
    if (kms) throw notImplemented('Server-side encryption with KMS keys (SSE-KMS)', kms);
  }
  if (OBJECT_LOCK_OPERATIONS.has(operation) && OBJECT_LOCK_HEADERS.some(present)) {
    throw new S3Error('InvalidRequest', 'Bucket is missing Object Lock Configuration');
  }
}
