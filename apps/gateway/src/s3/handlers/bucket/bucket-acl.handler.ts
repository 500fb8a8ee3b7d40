import { Inject, Injectable } from '@nestjs/common';
import { S3Error } from '@ostore/s3/protocol';
import type { BucketsService } from '@ostore/s3/core';
import { BUCKETS_SERVICE } from '../../services';
import { aclPolicyXml } from '../../acl-xml';
import { cannedAclOf } from '../../object-http';
import { readSmallBody, sendEmpty, sendXml } from '../../responses';
import type { S3Handler } from '../../s3-handler';
import type { S3Request } from '../../s3-request';

/** Canned ACLs only (x-amz-acl); an AccessControlPolicy body is not supported. */
@Injectable()
export class PutBucketAclHandler implements S3Handler {
  readonly operation = 'PutBucketAcl';
  readonly access = 'bucket-owner' as const;

  constructor(@Inject(BUCKETS_SERVICE) private readonly buckets: BucketsService) {}

  async handle(req: S3Request): Promise<void> {
    const acl = cannedAclOf(req);
    const body = await readSmallBody(req);
    if (!acl) {
      throw new S3Error('NotImplemented', body.length ? 'Only canned ACLs (x-amz-acl) are supported' : 'x-amz-acl is required');
    }
    await this.buckets.setAcl(req.bucket!, acl);
    sendEmpty(req, 200);
  }
}

@Injectable()
export class GetBucketAclHandler implements S3Handler {
  readonly operation = 'GetBucketAcl';
  readonly access = 'bucket-owner' as const;

  async handle(req: S3Request): Promise<void> {
    const b = req.bucketInfo!;
    sendXml(req, 200, aclPolicyXml(b.owner, b.acl));
  }
}
