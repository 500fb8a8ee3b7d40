import { createHash } from 'crypto';
import { headerValue, HttpHeaders, S3Error } from '@ostore/s3/protocol';
import type { SseRecord } from './keys';

/** A customer key given with a request (SSE-C), checked against its MD5. */
export interface CustomerKey {
  key: Buffer;
  /** base64 MD5 of the key, as the client sent it (and S3 echoes it). */
  keyMd5: string;
}

/** The prefix of the SSE-C headers for the object itself (`''`) or for a copy source. */
export type CustomerKeyHeaders = 'x-amz-server-side-encryption-customer-' | 'x-amz-copy-source-server-side-encryption-customer-';

/** SSE-C headers of the object itself. */
export const OBJECT_KEY_HEADERS: CustomerKeyHeaders = 'x-amz-server-side-encryption-customer-';
/** SSE-C headers of a copy source. */
export const COPY_SOURCE_KEY_HEADERS: CustomerKeyHeaders = 'x-amz-copy-source-server-side-encryption-customer-';

/**
 * The SSE-C key of a request, or undefined when none of the three headers is present. As S3: an
 * algorithm other than AES256 is InvalidEncryptionAlgorithmError; a missing header, a key that is
 * not 256 bits, or an MD5 that does not match the key is InvalidArgument.
 */
export function parseCustomerKey(headers: HttpHeaders, prefix: CustomerKeyHeaders = OBJECT_KEY_HEADERS): CustomerKey | undefined {
  const algorithm = headerValue(headers, `${prefix}algorithm`);
  const key = headerValue(headers, `${prefix}key`);
  const md5 = headerValue(headers, `${prefix}key-md5`);
  if (algorithm === undefined && key === undefined && md5 === undefined) return undefined;
  const argument = (name: string, value: string | undefined, message: string) =>
    new S3Error('InvalidArgument', message, { extra: { ArgumentName: name, ArgumentValue: value ?? 'null' } });
  if (algorithm === undefined)
    throw argument(`${prefix}algorithm`, undefined, 'Requests specifying Server Side Encryption with Customer provided keys must provide a valid encryption algorithm.');
  if (algorithm !== 'AES256') throw new S3Error('InvalidEncryptionAlgorithmError', undefined, { extra: { ArgumentName: `${prefix}algorithm`, ArgumentValue: algorithm } });
  if (key === undefined) throw argument(`${prefix}key`, undefined, 'Requests specifying Server Side Encryption with Customer provided keys must provide an appropriate secret key.');
  const raw = Buffer.from(key, 'base64');
  if (raw.length !== 32 || raw.toString('base64') !== key.trim()) throw argument(`${prefix}key`, undefined, 'The secret key was invalid for the specified algorithm.');
  if (md5 === undefined) throw argument(`${prefix}key-MD5`, undefined, 'Requests specifying Server Side Encryption with Customer provided keys must provide the client calculated MD5 of the secret key.');
  if (createHash('md5').update(raw).digest('base64') !== md5.trim())
    throw argument(`${prefix}key-MD5`, undefined, 'The calculated MD5 hash of the key did not match the hash that was provided.');
  return { key: raw, keyMd5: md5.trim() };
}

/**
 * What `x-amz-server-side-encryption` asks for: undefined (nothing), or AES256 (SSE-S3).
 * aws:kms and aws:kms:dsse are NotImplemented (no KMS here), anything else InvalidArgument, and so
 * is asking for SSE-S3 and SSE-C at once.
 */
export function requestedServerEncryption(headers: HttpHeaders, withCustomerKey: boolean): 'AES256' | undefined {
  const algorithm = headerValue(headers, 'x-amz-server-side-encryption');
  if (algorithm === undefined) return undefined;
  if (algorithm === 'aws:kms' || algorithm === 'aws:kms:dsse')
    throw new S3Error('NotImplemented', 'Server-side encryption with KMS keys (SSE-KMS) is not implemented: the request was refused and nothing was stored', {
      extra: { Header: 'x-amz-server-side-encryption' },
    });
  if (algorithm !== 'AES256')
    throw new S3Error('InvalidArgument', 'The encryption method specified is not supported', {
      extra: { ArgumentName: 'x-amz-server-side-encryption', ArgumentValue: algorithm },
    });
  if (withCustomerKey)
    throw new S3Error('InvalidArgument', 'Server Side Encryption with Customer provided key is incompatible with the encryption method specified', {
      extra: { ArgumentName: 'x-amz-server-side-encryption', ArgumentValue: algorithm },
    });
  return 'AES256';
}

/** The response headers S3 returns for an object stored under `record` (SSE-C echoes the key's MD5). */
export function sseResponseHeaders(record: SseRecord | undefined, customerKey?: CustomerKey): Record<string, string> {
  if (!record) return {};
  if (record.alg === 'AES256') return { 'x-amz-server-side-encryption': 'AES256' };
  return {
    'x-amz-server-side-encryption-customer-algorithm': 'AES256',
    ...(customerKey ? { 'x-amz-server-side-encryption-customer-key-MD5': customerKey.keyMd5 } : {}),
  };
}
