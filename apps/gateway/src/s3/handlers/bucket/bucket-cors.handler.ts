import { Inject, Injectable } from '@nestjs/common';
import { decodeStoredCors, encodeStoredCors, MAX_CORS_XML_BYTES, parseCorsXml, renderCorsXml, S3Error } from '@ostore/s3/protocol';
import type { BucketsService } from '@ostore/s3/core';
import { BUCKETS_SERVICE } from '../../services';
import { sendEmpty, sendXml } from '../../responses';
import { readVerifiedBody } from '../../request-body';
import type { S3Handler } from '../../s3-handler';
import type { S3Request } from '../../s3-request';

/** Validated as S3 does (cors.ts of @ostore/s3/protocol), stored in the bucket row in its stored form. */
@Injectable()
export class PutBucketCorsHandler implements S3Handler {
  readonly operation = 'PutBucketCors';
  readonly access = 'bucket-owner' as const;

  constructor(@Inject(BUCKETS_SERVICE) private readonly buckets: BucketsService) {}

  async handle(req: S3Request): Promise<void> {
    const rules = parseCorsXml((await readVerifiedBody(req, 'all', MAX_CORS_XML_BYTES)).toString('utf8'));
    await this.buckets.setCors(req.bucket!, encodeStoredCors(rules));
    sendEmpty(req, 200);
  }
}

@Injectable()
export class GetBucketCorsHandler implements S3Handler {
  readonly operation = 'GetBucketCors';
  readonly access = 'bucket-owner' as const;

  async handle(req: S3Request): Promise<void> {
    const stored = req.target.cors;
    if (!stored) throw new S3Error('NoSuchCORSConfiguration', undefined, { extra: { BucketName: req.bucket! } });
    sendXml(req, 200, renderCorsXml(decodeStoredCors(stored)));
  }
}

@Injectable()
export class DeleteBucketCorsHandler implements S3Handler {
  readonly operation = 'DeleteBucketCors';
  readonly access = 'bucket-owner' as const;

  constructor(@Inject(BUCKETS_SERVICE) private readonly buckets: BucketsService) {}

  async handle(req: S3Request): Promise<void> {
    await this.buckets.deleteCors(req.bucket!);
    sendEmpty(req, 204);
  }
}
