import { Inject, Injectable } from '@nestjs/common';
import type { BucketsService } from '@ostore/s3/core';
import { decodeAcl } from '@ostore/s3/policy';
import { BUCKETS_SERVICE } from '../../services';
import { aclToSet } from '../../acl-body';
import { AclResolver } from '../../acl-request';
import { aclPolicyXml } from '../../acl-xml';
import { sendEmpty, sendXml } from '../../responses';
import type { S3Handler } from '../../s3-handler';
import type { S3Request } from '../../s3-request';

/** PutBucketAcl: a canned ACL, grant headers or an AccessControlPolicy body (the owner or a WRITE_ACP grantee). */
@Injectable()
export class PutBucketAclHandler implements S3Handler {
  readonly operation = 'PutBucketAcl';
  readonly access = 'bucket-write-acp' as const;

  constructor(
    @Inject(BUCKETS_SERVICE) private readonly buckets: BucketsService,
    private readonly resolver: AclResolver,
  ) {}

  async handle(req: S3Request): Promise<void> {
    const acl = await aclToSet(req, this.resolver, req.target.owner.id);
    await this.buckets.setAcl(req.bucket!, acl);
    sendEmpty(req, 200);
  }
}

/** GetBucketAcl: the owner and every grant (the owner or a READ_ACP grantee). */
@Injectable()
export class GetBucketAclHandler implements S3Handler {
  readonly operation = 'GetBucketAcl';
  readonly access = 'bucket-read-acp' as const;

  async handle(req: S3Request): Promise<void> {
    const b = req.target;
    sendXml(req, 200, aclPolicyXml(b.owner, decodeAcl(b.acl, b.owner)));
  }
}
