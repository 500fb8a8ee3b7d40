import { Inject, Injectable } from '@nestjs/common';
import { isoDate, toXml } from '@ostore/s3/protocol';
import type { BucketsService } from '@ostore/s3/core';
import { BUCKETS_SERVICE } from '../../services';
import { sendXml } from '../../responses';
import type { S3Handler } from '../../s3-handler';
import type { S3Request } from '../../s3-request';

@Injectable()
export class ListBucketsHandler implements S3Handler {
  readonly operation = 'ListBuckets';
  readonly access = 'authenticated' as const;

  constructor(@Inject(BUCKETS_SERVICE) private readonly buckets: BucketsService) {}

  async handle(req: S3Request): Promise<void> {
    const owner = req.owner!;
    const buckets = await this.buckets.listOwned(owner.id);
    sendXml(
      req,
      200,
      toXml('ListAllMyBucketsResult', {
        Owner: { ID: owner.id, DisplayName: owner.displayName },
        Buckets: { Bucket: buckets.map((b) => ({ Name: b.name, CreationDate: isoDate(b.createdAt) })) },
      }),
    );
  }
}
