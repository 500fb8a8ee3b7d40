import type { IncomingMessage } from 'http';
import { Inject, Injectable } from '@nestjs/common';
import {
  EMPTY_SHA256,
  createChunkedDecoder,
  parseSigV2,
  repeatedHeaders,
  parseSigV4,
  S3Error,
  SigV4Request,
  STREAMING_SIGNED_PAYLOAD,
  STREAMING_SIGNED_PAYLOAD_TRAILER,
  STREAMING_UNSIGNED_PAYLOAD_TRAILER,
  UNSIGNED_PAYLOAD,
  verifySigV2,
  verifySigV4,
} from '@ostore/s3/protocol';
import { Clock } from '@ostore/shared/clock';
import { UsersService, AccessKey, User } from '@ostore/s3/core';
import { USERS_SERVICE } from './services';
import { GATEWAY_CONFIG } from './tokens';
import type { GatewayConfig } from '../config/gateway.config';
import { PayloadHashVerifier } from './payload-hash';
import { AccessKeyCache } from './access-key-cache';
import type { S3Request } from './s3-request';

/**
 * Authenticates a request (SigV4 or, unless S3_SIGV2 is off, Signature Version 2, each in headers or
 * presigned query; anonymous when unsigned) and
 * sets up its body: aws-chunked bodies are decoded and their chunk signatures verified; plain
 * bodies with a signed SHA-256 are checked against it before the handler commits anything.
 *
 * Access keys are cached for `authCacheMs` so the hot path makes no Cassandra read per request;
 * a disabled key stops working within that time. Unknown ids are remembered for
 * `authNegativeCacheMs`; the cache holds at most `authCacheMaxKeys` (least recently used goes).
 */
/** A request that carries no body at all: no Transfer-Encoding, and no or a zero Content-Length. */
function hasNoBody(raw: IncomingMessage): boolean {
  const length = raw.headers['content-length'];
  return raw.headers['transfer-encoding'] === undefined && (length === undefined || length === '0');
}

@Injectable()
export class Authenticator {
  private readonly cache: AccessKeyCache<{ key: AccessKey; user: User }>;

  constructor(
    @Inject(USERS_SERVICE) private readonly users: UsersService,
    private readonly clock: Clock,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
  ) {
    const s3 = config.s3;
    this.cache = new AccessKeyCache(clock, { ttlMs: s3.authCacheMs, negativeTtlMs: s3.authNegativeCacheMs, maxEntries: s3.authCacheMaxKeys });
  }

  async authenticate(req: S3Request): Promise<void> {
    const signed: SigV4Request = { method: req.method, rawPath: req.rawPath, query: req.queryPairs, headers: req.headers, repeatedHeaders: repeatedHeaders(req.raw.rawHeaders) };
    // V2 off: parseSigV4 refuses a V2 signature as SigV4-only regions do
    const v2 = this.config.s3.sigV2 ? parseSigV2(signed) : undefined;
    if (v2) {
      const found = await this.activeKey(v2.accessKeyId);
      const resource = { virtualHostBucket: req.addressing === 'virtual-host' ? req.bucket : undefined };
      verifySigV2(v2, signed, resource, found.key.secretAccessKey, this.clock.now(), this.config.s3.maxClockSkewMs);
      req.principal = { kind: 'user', owner: { id: found.user.id, displayName: found.user.displayName }, accessKeyId: found.key.accessKeyId };
      req.body = req.raw;
      return;
    }
    const parsed = parseSigV4(signed);
    if (!parsed) {
      req.body = req.raw;
      return;
    }
    const found = await this.activeKey(parsed.accessKeyId);
    const verified = verifySigV4(parsed, signed, found.key.secretAccessKey, this.clock.now(), {
      maxSkewMs: this.config.s3.maxClockSkewMs,
      region: this.config.s3.region,
    });
    req.principal = {
      kind: 'user',
      owner: { id: found.user.id, displayName: found.user.displayName },
      accessKeyId: found.key.accessKeyId,
    };

    const payload = parsed.payloadHash;
    if (payload === STREAMING_SIGNED_PAYLOAD || payload === STREAMING_SIGNED_PAYLOAD_TRAILER || payload === STREAMING_UNSIGNED_PAYLOAD_TRAILER) {
      const decodedHeader = req.header('x-amz-decoded-content-length');
      const decodedLength = decodedHeader === undefined ? undefined : Number(decodedHeader);
      if (decodedHeader !== undefined && (!Number.isSafeInteger(decodedLength) || decodedLength! < 0)) {
        throw new S3Error('InvalidArgument', 'x-amz-decoded-content-length must be a non-negative integer');
      }
      const trailerHeader = req.header('x-amz-trailer');
      const decoder = createChunkedDecoder({
        mode: payload,
        signing: payload === STREAMING_UNSIGNED_PAYLOAD_TRAILER ? undefined : verified,
        decodedContentLength: decodedLength,
        expectedTrailers: trailerHeader ? trailerHeader.split(',').map((t) => t.trim().toLowerCase()).filter(Boolean) : undefined,
      });
      req.raw.on('error', (e) => decoder.destroy(e));
      // The body starts flowing into the decoder at once, possibly before a handler reads it: a bad
      // chunk must not be an unhandled 'error' event (it would kill the process). The error stays
      // on the stream (`errored`) and reaches whoever reads the body.
      decoder.on('error', () => undefined);
      req.body = req.raw.pipe(decoder);
      req.trailers = () => decoder.trailers;
      req.decodedLength = decodedLength;
    } else if (payload.toLowerCase() === EMPTY_SHA256 && hasNoBody(req.raw)) {
      // GET, HEAD, DELETE...: SDKs sign the hash of the empty payload; a request without a body
      // matches it by definition, so no hashing stream is set up (it was ~3 % of a small GET)
      req.body = req.raw;
    } else if (payload !== UNSIGNED_PAYLOAD && /^[0-9a-f]{64}$/i.test(payload)) {
      const verifier = new PayloadHashVerifier(payload);
      req.raw.on('error', (e) => verifier.destroy(e));
      verifier.on('error', () => undefined);
      req.body = req.raw.pipe(verifier);
    } else {
      req.body = req.raw;
    }
  }

  /** The enabled key of an enabled user, else InvalidAccessKeyId / AccessDenied as S3 answers. */
  async activeKey(accessKeyId: string): Promise<{ key: AccessKey; user: User }> {
    const found = await this.cache.get(accessKeyId, (id) => this.users.findAccessKey(id));
    if (!found || found.key.disabled) {
      throw new S3Error('InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.', {
        extra: { AWSAccessKeyId: accessKeyId },
      });
    }
    if (found.user.disabled) throw new S3Error('AccessDenied', 'Access Denied: the user is disabled');
    return found;
  }
}
