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
  SseRecord,
  sseResponseHeaders,
} from '@ostore/s3/crypto';
import { S3Error } from '@ostore/s3/protocol';
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

  /** The encryption a PutObject / CopyObject destination gets; undefined: stored plain. */
  forWrite(req: S3Request): WriteEncryption | undefined {
    const customer = this.customerKey(req, OBJECT_KEY_HEADERS);
    const asked = requestedServerEncryption(req.headers, customer !== undefined);
    if (customer) {
      const { dataKey, record } = newSseCKey(customer.key);
      const etag = (md5: Buffer) => `"${createHmac('sha256', dataKey).update(md5).digest('hex').slice(0, 32)}"`;
      return { dataKey, sse: encodeSseRecord(record), etag, headers: sseResponseHeaders(record, customer), customerKey: customer };
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
    try {
      const dataKey = dataKeyOf(record, { keyring: this.keyring, customerKey: customer?.key });
      return { dataKey, record, headers: sseResponseHeaders(record, customer), customerKey: customer };
    } catch (e) {
      if (!(e instanceof DataKeyError)) throw e;
      if (e.reason === 'customer-key-wrong') throw new S3Error('AccessDenied', 'Access Denied');
      // a master key taken out of S3_SSE_MASTER_KEYS too early, or a damaged record: the store's fault
      throw new S3Error('InternalError', `The object's data key cannot be recovered (${e.reason})`, { httpStatus: 500 });
    }
  }

  private customerKey(req: S3Request, prefix: CustomerKeyHeaders): CustomerKey | undefined {
    const key = parseCustomerKey(req.headers, prefix);
    if (key && !this.allowHttp && (req.raw.socket as TLSSocket).encrypted !== true)
      throw new S3Error('InvalidRequest', 'Requests specifying Server Side Encryption with Customer provided keys must be made over a secure connection.');
    return key;
  }
}
