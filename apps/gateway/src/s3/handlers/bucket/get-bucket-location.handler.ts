import { Injectable } from '@nestjs/common';
import { toXml } from '@ostore/s3/protocol';
import { sendXml } from '../../responses';
import type { S3Handler } from '../../s3-handler';
import type { S3Request } from '../../s3-request';

/** us-east-1 is reported as an empty LocationConstraint, as S3 does. */
@Injectable()
export class GetBucketLocationHandler implements S3Handler {
  readonly operation = 'GetBucketLocation';
  readonly access = 'bucket-owner' as const;

  async handle(req: S3Request): Promise<void> {
    const location = req.bucketInfo!.location;
    sendXml(req, 200, toXml('LocationConstraint', location === 'us-east-1' ? '' : location));
  }
}
