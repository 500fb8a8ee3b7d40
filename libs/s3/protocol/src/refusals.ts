import { S3Error } from './errors';
import { HttpHeaders, headerValue } from './headers';

/**
 * Honest refusals: request headers that ask for something this store does not do (server-side
 * encryption, Object Lock) are refused with S3's error instead of being ignored, and limits S3
 * checks before reading a body (object size) or a header value it echoes (response overrides).
 */

/** The largest body one PutObject may carry (S3: 5 GiB); larger objects need a multipart upload. */
export const MAX_PUT_OBJECT_BYTES = 5 * 1024 ** 3;

/**
 * Operations whose headers may ask for server-side encryption of what they store. SSE-S3 and SSE-C
 * are real on all of them and on the parts of a multipart upload (@ostore/s3/crypto, the gateway's
 * ObjectEncryption): only SSE-KMS is refused here.
 */
const SSE_OPERATIONS = new Set(['PutObject', 'CopyObject', 'CreateMultipartUpload']);
/** Operations whose headers may put an Object Lock retention or legal hold on the new version. */
const OBJECT_LOCK_OPERATIONS = new Set(['PutObject', 'CopyObject', 'CreateMultipartUpload']);

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
 * is stored: SSE-KMS always answers NotImplemented (no KMS here; an unknown algorithm is
 * InvalidArgument, as on S3); Object Lock headers answer
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
  if (SSE_OPERATIONS.has(operation)) {
    const algorithm = headerValue(headers, 'x-amz-server-side-encryption');
    if (algorithm !== undefined) {
      if (algorithm === 'aws:kms' || algorithm === 'aws:kms:dsse') throw notImplemented('Server-side encryption with KMS keys (SSE-KMS)', 'x-amz-server-side-encryption');
      if (algorithm !== 'AES256')
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

/**
 * PutObject's announced size (x-amz-decoded-content-length of an aws-chunked body, else
 * Content-Length) above 5 GiB is EntityTooLarge, answered before any of the body is read.
 */
export function refuseOversizedPut(headers: HttpHeaders): void {
  const announced = headerValue(headers, 'x-amz-decoded-content-length') ?? headerValue(headers, 'content-length');
  if (announced === undefined || !/^\d+$/.test(announced.trim())) return; // malformed or absent: the handler's checks
  const size = Number(announced);
  if (size > MAX_PUT_OBJECT_BYTES) {
    throw new S3Error('EntityTooLarge', undefined, { extra: { ProposedSize: announced.trim(), MaxSizeAllowed: String(MAX_PUT_OBJECT_BYTES) } });
  }
}

/** The query parameters of GetObject/HeadObject that override a response header. */
export const RESPONSE_OVERRIDE_PARAMS = [
  'response-content-type',
  'response-content-language',
  'response-expires',
  'response-cache-control',
  'response-content-disposition',
  'response-content-encoding',
];

/** Characters a header value may not carry (CR, LF, NUL and other controls but TAB). */
const NOT_IN_HEADER_VALUE = /[\u0000-\u0008\u000a-\u001f\u007f]|[^\u0000-\u00ff]/;

/**
 * A response-* override is echoed as a response header: one that could not be a header value
 * (CR/LF, controls, characters beyond Latin-1) is InvalidArgument, never a broken response.
 */
export function validateResponseOverrides(query: [string, string][]): void {
  for (const [name, value] of query) {
    if (RESPONSE_OVERRIDE_PARAMS.includes(name) && NOT_IN_HEADER_VALUE.test(value)) {
      throw new S3Error('InvalidArgument', `Invalid value for the ${name} parameter: a header value may not contain control characters`, {
        extra: { ArgumentName: name, ArgumentValue: value },
      });
    }
  }
}
