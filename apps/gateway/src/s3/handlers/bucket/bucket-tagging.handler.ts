import { Inject, Injectable } from '@nestjs/common';
import { parseTagging, toXml } from '@ostore/s3/protocol';
import type { BucketsService } from '@ostore/s3/core';
import { BUCKETS_SERVICE } from '../../services';
import { sendEmpty, sendXml } from '../../responses';
import { readVerifiedBody } from '../../request-body';
import type { S3Handler } from '../../s3-handler';
import type { S3Request } from '../../s3-request';

export function tagSetXml(tags: Record<string, string>): string {
  return toXml('Tagging', { TagSet: { Tag: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })) } });
}

@Injectable()
export class PutBucketTaggingHandler implements S3Handler {
  readonly operation = 'PutBucketTagging';
  readonly access = 'bucket-owner' as const;

  constructor(@Inject(BUCKETS_SERVICE) private readonly buckets: BucketsService) {}

  async handle(req: S3Request): Promise<void> {
    const tags = parseTagging((await readVerifiedBody(req, 'all')).toString('utf8'), 'bucket');
    await this.buckets.setTags(req.bucket!, tags);
    sendEmpty(req, 204);
  }
}

@Injectable()
export class GetBucketTaggingHandler implements S3Handler {
  readonly operation = 'GetBucketTagging';
  readonly access = 'bucket-owner' as const;

  constructor(@Inject(BUCKETS_SERVICE) private readonly buckets: BucketsService) {}

  async handle(req: S3Request): Promise<void> {
    sendXml(req, 200, tagSetXml(await this.buckets.getTags(req.bucket!)));
  }
}

@Injectable()
export class DeleteBucketTaggingHandler implements S3Handler {
  readonly operation = 'DeleteBucketTagging';
  readonly access = 'bucket-owner' as const;

  constructor(@Inject(BUCKETS_SERVICE) private readonly buckets: BucketsService) {}

  async handle(req: S3Request): Promise<void> {
    await this.buckets.deleteTags(req.bucket!);
    sendEmpty(req, 204);
  }
}
