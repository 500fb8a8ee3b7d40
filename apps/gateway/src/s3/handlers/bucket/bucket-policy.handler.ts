import { Inject, Injectable } from '@nestjs/common';
import { S3Error, toXml } from '@ostore/s3/protocol';
import type { BucketsService } from '@ostore/s3/core';
import { decodeAcl, decodePublicAccessBlock, isAclPublic, isPolicyPublic, MalformedPolicyError, MAX_POLICY_BYTES, parseBucketPolicy, storedBucketPolicy } from '@ostore/s3/policy';
import { BUCKETS_SERVICE } from '../../services';
import { sendEmpty, sendXml } from '../../responses';
import { readVerifiedBody } from '../../request-body';
import type { S3Handler } from '../../s3-handler';
import type { S3Request } from '../../s3-request';

const noPolicy = (bucket: string) => S3Error.fromCode('NoSuchBucketPolicy', 'The bucket policy does not exist', { httpStatus: 404, extra: { BucketName: bucket } });

/**
 * PutBucketPolicy: the document is validated as S3 does (MalformedPolicy with AWS's reason) and
 * stored as sent; BlockPublicPolicy refuses a public one (AccessDenied).
 */
@Injectable()
export class PutBucketPolicyHandler implements S3Handler {
  readonly operation = 'PutBucketPolicy';
  readonly access = 'bucket-owner' as const;

  constructor(@Inject(BUCKETS_SERVICE) private readonly buckets: BucketsService) {}

  async handle(req: S3Request): Promise<void> {
    if (req.header('x-amz-confirm-remove-self-bucket-access') === 'true')
      throw new S3Error('NotImplemented', 'x-amz-confirm-remove-self-bucket-access is not supported');
    const document = (await readVerifiedBody(req, 'all', MAX_POLICY_BYTES * 4)).toString('utf8');
    let policy;
    try {
      policy = parseBucketPolicy(document, req.target.name);
    } catch (e) {
      if (e instanceof MalformedPolicyError) throw S3Error.fromCode('MalformedPolicy', e.message, { httpStatus: 400 });
      throw e;
    }
    if (decodePublicAccessBlock(req.target.publicAccessBlock)?.blockPublicPolicy && isPolicyPublic(policy)) throw new S3Error('AccessDenied', 'Access Denied');
    await this.buckets.setAccessSettings(req.target.name, { policy: document });
    sendEmpty(req, 204);
  }
}

/** GetBucketPolicy: the document exactly as stored, as JSON. */
@Injectable()
export class GetBucketPolicyHandler implements S3Handler {
  readonly operation = 'GetBucketPolicy';
  readonly access = 'bucket-owner' as const;

  async handle(req: S3Request): Promise<void> {
    const document = req.target.policy;
    if (!document) throw noPolicy(req.target.name);
    const body = Buffer.from(document, 'utf8');
    req.res.writeHead(200, { 'x-amz-request-id': req.requestId, 'x-amz-id-2': req.requestId, Server: 'OStore', 'Content-Type': 'application/json', 'Content-Length': body.length });
    req.res.end(body);
  }
}

@Injectable()
export class DeleteBucketPolicyHandler implements S3Handler {
  readonly operation = 'DeleteBucketPolicy';
  readonly access = 'bucket-owner' as const;

  constructor(@Inject(BUCKETS_SERVICE) private readonly buckets: BucketsService) {}

  async handle(req: S3Request): Promise<void> {
    await this.buckets.setAccessSettings(req.target.name, { policy: null });
    sendEmpty(req, 204);
  }
}

/**
 * GetBucketPolicyStatus: IsPublic as "The meaning of public" describes it — a public policy, or a
 * bucket ACL granting AllUsers / AuthenticatedUsers unless IgnorePublicAcls discards it. A bucket
 * without a policy answers IsPublic false rather than an error.
 */
@Injectable()
export class GetBucketPolicyStatusHandler implements S3Handler {
  readonly operation = 'GetBucketPolicyStatus';
  readonly access = 'bucket-owner' as const;

  async handle(req: S3Request): Promise<void> {
    const b = req.target;
    const policy = b.policy ? storedBucketPolicy(b.policy, b.name) : undefined;
    const aclPublic = isAclPublic(decodeAcl(b.acl, b.owner)) && !decodePublicAccessBlock(b.publicAccessBlock)?.ignorePublicAcls;
    const isPublic = isPolicyPublic(policy) || aclPublic;
    sendXml(req, 200, toXml('PolicyStatus', { IsPublic: String(isPublic) }));
  }
}
