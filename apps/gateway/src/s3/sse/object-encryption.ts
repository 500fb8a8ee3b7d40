import { createHmac } from 'crypto';
import type { TLSSocket } from 'tls';
import { Inject, Injectable } from '@nestjs/common';
import {
  COPY_SOURCE_KEY_HEADERS,
  CustomerKey,
  CustomerKeyHeaders,
  DataKeyError,
  dataKeyOf,
  decodeBucketEncryption,
  decodeSseRecord,
  encodeSseRecord,
  MasterKeyring,
  newSseCKey,
  newSseS3Key,
  OBJECT_KEY_HEADERS,
  parseCustomerKey,
  requestedServerEncryption,
  rewrapSseS3,
  SseRecord,
  sseResponseHeaders,
} from '@ostore/s3/crypto';
import type { PartEncryption } from '@ostore/s3/core';
import { HttpHeaders, S3Error } from '@ostore/s3/protocol';
import type { GatewayConfig } from '../../config/gateway.config';
import type { S3Request } from '../s3-request';
import { GATEWAY_CONFIG } from '../tokens';

/** How a write encrypts what it stores. */
export interface WriteEncryption {
  dataKey: Buffer;
  /** The stored record (ObjectMeta.sse). */
  sse: string;
  /** The ETag of the new version from the body's MD5 (SSE-C: not the MD5, as on S3). */
  etag?: (md5: Buffer) => string;
  /** What the response says about it. */
  headers: Record<string, string>;
  /** The SSE-C key it was made with, if any (a copy compares it with its source's). */
  customerKey?: CustomerKey;
}

/** The data key of a stored version, and what a response says about its encryption. */
export interface ReadEncryption {
  dataKey?: Buffer;
  record?: SseRecord;
  headers: Record<string, string>;
  customerKey?: CustomerKey;
}

/**
 * Server-side encryption as the S3 handlers see it: which encryption a write asks for (its SSE
 * headers, else the bucket's default), and the data key of what a read opens, with S3's errors —
 * an SSE-C object without its key is 400 InvalidRequest, with another key 403 AccessDenied; SSE-C
 * over plain HTTP is refused unless S3_SSE_C_ALLOW_HTTP.
 */
@Injectable()
export class ObjectEncryption {
  private readonly keyring: MasterKeyring;
  private readonly allowHttp: boolean;

  constructor(@Inject(GATEWAY_CONFIG) config: GatewayConfig) {
    this.keyring = new MasterKeyring(config.sse.masterKeys);
    this.allowHttp = config.sse.allowCustomerKeysOverHttp;
  }

  /**
   * Refuses a bucket default encryption this gateway could not apply: without a master key every
   * later PUT to the bucket would fail, so the configuration is refused when it is set instead.
   */
  assertCanEncryptAtRest(): void {
    if (!this.keyring.current)
      throw new S3Error('NotImplemented', 'SSE-S3 needs a master key and this store has none configured (S3_SSE_MASTER_KEYS): the default encryption was not set');
  }

  /**
   * The encryption a PutObject / CopyObject / CreateMultipartUpload destination gets (its SSE
   * headers, or a browser POST's form fields as `headers`, else the bucket's default); undefined: stored plain.
   */
  forWrite(req: S3Request, headers: HttpHeaders = req.headers): WriteEncryption | undefined {
    const customer = this.customerKey(req, OBJECT_KEY_HEADERS, headers);
    const asked = requestedServerEncryption(headers, customer !== undefined);
    if (customer) {
      const { dataKey, record } = newSseCKey(customer.key);
      return { dataKey, sse: encodeSseRecord(record), etag: customerEtag(dataKey), headers: sseResponseHeaders(record, customer), customerKey: customer };
    }
    const algorithm = asked ?? decodeBucketEncryption(req.bucketInfo?.encryption)?.algorithm;
    if (algorithm === undefined) return undefined;
    if (!this.keyring.current)
      throw new S3Error('NotImplemented', 'SSE-S3 needs a master key and this store has none configured (S3_SSE_MASTER_KEYS): nothing was stored', {
        extra: { Header: 'x-amz-server-side-encryption' },
      });
    const { dataKey, record } = newSseS3Key(this.keyring);
    return { dataKey, sse: encodeSseRecord(record), headers: sseResponseHeaders(record) };
  }

  /** The data key of a stored version (`sse`: its record) for GET / HEAD, or of a copy source. */
  forRead(req: S3Request, sse: string | undefined, source = false): ReadEncryption {
    const customer = this.customerKey(req, source ? COPY_SOURCE_KEY_HEADERS : OBJECT_KEY_HEADERS);
    const notApplicable = () => new S3Error('InvalidRequest', 'The encryption parameters are not applicable to this object.');
    if (!sse) {
      if (customer) throw notApplicable();
      return { headers: {} };
    }
    const record = decodeSseRecord(sse);
    if (record.alg === 'SSE-C' && !customer)
      throw new S3Error(
        'InvalidRequest',
        source
          ? 'The source object was stored using a form of Server Side Encryption. The correct parameters must be provided to retrieve the object.'
          : 'The object was stored using a form of Server Side Encryption. The correct parameters must be provided to retrieve the object.',
      );
    if (record.alg === 'AES256' && customer) throw notApplicable();
    const dataKey = this.recover(record, customer, () => new S3Error('AccessDenied', 'Access Denied'));
    return { dataKey, record, headers: sseResponseHeaders(record, customer), customerKey: customer };
  }

  /**
   * The data key an UploadPart / UploadPartCopy seals its part with, from its upload's record
   * (`uploadSse`, undefined for a plain upload): an SSE-C upload needs its customer key on every
   * part — missing is 400 InvalidRequest, another key 400 InvalidRequest too (S3 answers 400 there,
   * not GetObject's 403); a key for an upload that has none is InvalidRequest. `headers`: the response's.
   */
  forPart(req: S3Request, uploadSse: string | undefined): (PartEncryption & { headers: Record<string, string> }) | undefined {
    const customer = this.customerKey(req, OBJECT_KEY_HEADERS);
    if (!uploadSse) {
      if (customer) throw new S3Error('InvalidRequest', 'The encryption parameters are not applicable to this object.');
      return undefined;
    }
    const record = decodeSseRecord(uploadSse);
    if (record.alg === 'SSE-C' && !customer)
      throw new S3Error('InvalidRequest', 'The multipart upload initiate requested encryption. Subsequent part requests must include the appropriate encryption parameters.');
    if (record.alg === 'AES256' && customer) throw new S3Error('InvalidRequest', 'The encryption parameters are not applicable to this object.');
    const dataKey = this.recover(record, customer, () => new S3Error('InvalidRequest', 'The provided encryption parameters did not match the ones used originally.'));
    return { dataKey, etag: record.alg === 'SSE-C' ? customerEtag(dataKey) : undefined, headers: sseResponseHeaders(record, customer) };
  }

  /**
   * For a request that reads about an object without opening its body (GetObjectAttributes): an
   * SSE-C object still needs its customer key (400 without, 403 with another), as on S3; an SSE-S3
   * or plain object needs nothing (a customer key for it is refused as on GET).
   */
  checkKey(req: S3Request, sse: string | undefined): void {
    if (sse && decodeSseRecord(sse).alg === 'AES256' && !this.customerKey(req, OBJECT_KEY_HEADERS)) return;
    this.forRead(req, sse);
  }

  /** The id of the master key that wraps new data keys (undefined without SSE-S3). */
  get currentKeyId(): string | undefined {
    return this.keyring.current?.id;
  }

  /**
   * The record `sse` re-wrapped by the current master key (same data key), or undefined when it
   * needs nothing: SSE-C, or wrapped by the current key already. Throws when its master key is not
   * configured any more (the re-wrap pass stops there rather than skip an object it cannot save).
   */
  rewrap(sse: string): string | undefined {
    const next = rewrapSseS3(decodeSseRecord(sse), this.keyring);
    return next && encodeSseRecord(next);
  }

  /** What a response says about an object stored under the record `sse` (CompleteMultipartUpload: no key echoed). */
  headersOf(sse: string | undefined): Record<string, string> {
    return sse ? sseResponseHeaders(decodeSseRecord(sse)) : {};
  }

  private recover(record: SseRecord, customer: CustomerKey | undefined, wrongKey: () => S3Error): Buffer {
    try {
      return dataKeyOf(record, { keyring: this.keyring, customerKey: customer?.key });
    } catch (e) {
      if (!(e instanceof DataKeyError)) throw e;
      if (e.reason === 'customer-key-wrong') throw wrongKey();
      // a master key taken out of S3_SSE_MASTER_KEYS too early, or a damaged record: the store's fault
      throw new S3Error('InternalError', `The object's data key cannot be recovered (${e.reason})`, { httpStatus: 500 });
    }
  }

  private customerKey(req: S3Request, prefix: CustomerKeyHeaders, headers: HttpHeaders = req.headers): CustomerKey | undefined {
    const key = parseCustomerKey(headers, prefix);
    if (key && !this.allowHttp && (req.raw.socket as TLSSocket).encrypted !== true)
      throw new S3Error('InvalidRequest', 'Requests specifying Server Side Encryption with Customer provided keys must be made over a secure connection.');
    return key;
  }
}

/** The ETag of an SSE-C object or part: keyed by its data key, so that it does not give away the plaintext's MD5 (as on S3). */
function customerEtag(dataKey: Buffer): (md5: Buffer) => string {
  return (md5) => `"${createHmac('sha256', dataKey).update(md5).digest('hex').slice(0, 32)}"`;
}
