import { Inject, Injectable } from '@nestjs/common';
import { parseVersioningConfiguration, toXml } from '@ostore/s3/protocol';
import type { BucketsService } from '@ostore/s3/core';
import { BUCKETS_SERVICE } from '../../services';
import { sendEmpty, sendXml } from '../../responses';
import { readVerifiedBody } from '../../request-body';
import type { S3Handler } from '../../s3-handler';
import type { S3Request } from '../../s3-request';

@Injectable()
export class PutBucketVersioningHandler implements S3Handler {
  readonly operation = 'PutBucketVersioning';
  readonly access = 'bucket-owner' as const;

  constructor(@Inject(BUCKETS_SERVICE) private readonly buckets: BucketsService) {}

  async handle(req: S3Request): Promise<void> {
    const config = parseVersioningConfiguration((await readVerifiedBody(req, 'all')).toString('utf8'));
    await this.buckets.setVersioning(req.bucket!, config.status);
    sendEmpty(req, 200);
  }
}

/** An unversioned bucket answers an empty VersioningConfiguration. */
@Injectable()
export class GetBucketVersioningHandler implements S3Handler {
  readonly operation = 'GetBucketVersioning';
  readonly access = 'bucket-owner' as const;

  async handle(req: S3Request): Promise<void> {
    const v = req.bucketInfo!.versioning;
    sendXml(req, 200, toXml('VersioningConfiguration', v === 'Unversioned' ? {} : { Status: v }));
  }
}
