import { Injectable } from '@nestjs/common';
import { sendEmpty } from '../../responses';
import type { S3Handler } from '../../s3-handler';
import type { S3Request } from '../../s3-request';

/** Existence and access were checked by the access control; only the region is left to tell. */
@Injectable()
export class HeadBucketHandler implements S3Handler {
  readonly operation = 'HeadBucket';
  readonly access = 'bucket-read' as const;

  async handle(req: S3Request): Promise<void> {
    sendEmpty(req, 200, { 'x-amz-bucket-region': req.bucketInfo!.location, 'x-amz-access-point-alias': 'false' });
  }
}
