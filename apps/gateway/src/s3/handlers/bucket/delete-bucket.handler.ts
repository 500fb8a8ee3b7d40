import { Inject, Injectable } from '@nestjs/common';
import type { BucketsService } from '@ostore/s3/core';
import { BUCKETS_SERVICE } from '../../services';
import { sendEmpty } from '../../responses';
import type { S3Handler } from '../../s3-handler';
import type { S3Request } from '../../s3-request';

@Injectable()
export class DeleteBucketHandler implements S3Handler {
  readonly operation = 'DeleteBucket';
  readonly access = 'bucket-owner' as const;

  constructor(@Inject(BUCKETS_SERVICE) private readonly buckets: BucketsService) {}

  async handle(req: S3Request): Promise<void> {
    await this.buckets.delete(req.bucket!);
    sendEmpty(req, 204);
  }
}
