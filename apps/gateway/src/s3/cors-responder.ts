import { Inject, Injectable } from '@nestjs/common';
import { CORS_VARY, corsResponseHeaders, CorsRule, decodeStoredCors, matchCorsRule, requestedHeaders, S3Error } from '@ostore/s3/protocol';
import type { Bucket, BucketsService } from '@ostore/s3/core';
import { sendEmpty } from './responses';
import { BUCKETS_SERVICE } from './services';
import type { S3Request } from './s3-request';

const NOT_ALLOWED =
  "CORSResponse: This CORS request is not allowed. This is usually because the evalution of Origin, request method / Access-Control-Request-Method or Access-Control-Request-Headers are not whitelisted by the resource's CORS spec.";

/**
 * CORS as S3 serves it: the preflight (OPTIONS, never authenticated) answered from the bucket's
 * rules, and the Access-Control-* headers added to actual requests that carry an Origin.
 */
@Injectable()
export class CorsResponder {
  constructor(@Inject(BUCKETS_SERVICE) private readonly buckets: BucketsService) {}

  /**
   * Answers a preflight: 400 without Origin or Access-Control-Request-Method; 403 when the bucket
   * has no CORS configuration or no rule allows the origin, the method and every requested
   * header; else 200 with the matched rule's Access-Control-* headers.
   */
  async preflight(req: S3Request): Promise<void> {
    const origin = req.header('origin');
    const method = req.header('access-control-request-method');
    if (!origin || !method) throw new S3Error('BadRequest', 'Insufficient information. Origin request header needed.');
    if (!req.bucket) throw new S3Error('AccessDenied', 'CORSResponse: Bucket not found');
    const bucket = await this.buckets.get(req.bucket);
    const rules = corsRules(bucket);
    const resourceType = req.key !== undefined ? 'OBJECT' : 'BUCKET';
    if (!rules) {
      throw new S3Error('AccessDenied', 'CORSResponse: CORS is not enabled for this bucket.', { extra: { Method: method, ResourceType: resourceType } });
    }
    const r = { origin, method, requestHeaders: requestedHeaders(req.header('access-control-request-headers')) };
    const rule = matchCorsRule(rules, r);
    if (!rule) throw new S3Error('AccessDenied', NOT_ALLOWED, { extra: { Method: method, ResourceType: resourceType } });
    sendEmpty(req, 200, corsResponseHeaders(rule, r));
  }

  /**
   * For an actual request with Origin to a bucket with CORS rules: the matched rule's headers are
   * set on the response before the handler runs, so success and error answers both carry them
   * (and Vary, so caches keep answers per origin). As S3 does, a request that carries
   * Access-Control-Request-Method is matched by that method rather than its own (S3 treats it as
   * preflight information wherever it appears; LocalStack's AWS-validated CORS handler does the same).
   */
  decorate(req: S3Request): void {
    const origin = req.header('origin');
    if (!origin || !req.bucketInfo) return;
    const rules = corsRules(req.bucketInfo);
    if (!rules) return;
    const r = { origin, method: req.header('access-control-request-method') || req.method, requestHeaders: [] };
    const rule = matchCorsRule(rules, r);
    if (!rule) {
      req.res.setHeader('Vary', CORS_VARY);
      return;
    }
    for (const [name, value] of Object.entries(corsResponseHeaders(rule, r))) req.res.setHeader(name, value);
  }
}

function corsRules(bucket: Bucket): CorsRule[] | undefined {
  return bucket.cors ? decodeStoredCors(bucket.cors) : undefined;
}
