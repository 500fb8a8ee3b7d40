import { Inject, Injectable } from '@nestjs/common';
import { parseCopySource, S3Error } from '@ostore/s3/protocol';
import type { Bucket, BucketsService, StoredAcl } from '@ostore/s3/core';
import { aclGrantsPermission, AclPermission, decodeAcl } from '@ostore/s3/policy';
import { ACL_HEADER_OPERATIONS, AclResolver } from './acl-request';
import { BUCKETS_SERVICE } from './services';
import { bucketAclGrants, PolicyGate } from './policy-gate';
import type { AccessRule } from './s3-handler';
import type { S3Request } from './s3-request';

const denied = () => new S3Error('AccessDenied', 'Access Denied');

/** Answers that tell whether a key or version exists (a delete marker's 405 carries its headers). */
const EXISTENCE_CODES = new Set(['NoSuchKey', 'NoSuchVersion', 'MethodNotAllowed']);

/**
 * For a caller who may not list the bucket, S3 answers 403 whether the key exists or not: an
 * error that would tell (404 NoSuchKey, NoSuchVersion, a delete marker's 405 with its headers)
 * becomes a bare AccessDenied. Other errors pass unchanged.
 */
export function concealExistence(err: unknown): unknown {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && EXISTENCE_CODES.has(code) ? denied() : err;
}

const RULE_PERMISSIONS: Partial<Record<AccessRule, AclPermission>> = {
  'bucket-read': 'READ',
  'bucket-write': 'WRITE',
  'bucket-read-acp': 'READ_ACP',
  'bucket-write-acp': 'WRITE_ACP',
};

/**
 * ACL authorization, after the bucket policy (PolicyGate). The bucket owner may do everything;
 * others what the bucket's ACL grants (READ lists, WRITE writes objects, READ_ACP / WRITE_ACP
 * read and replace the bucket's ACL). Object ACLs are checked by the handlers once they have the
 * version in hand (`isObjectAllowed`); for a caller who may not list the bucket, the answer then
 * never tells whether the key exists (`concealsExistence`). Once authorized, the ACL a request's
 * headers set is resolved into `req.requestedAcl`.
 */
@Injectable()
export class AccessControl {
  constructor(
    @Inject(BUCKETS_SERVICE) private readonly buckets: BucketsService,
    private readonly policies: PolicyGate,
    private readonly acls: AclResolver,
  ) {}

  async authorize(req: S3Request, rule: AccessRule): Promise<void> {
    await this.authorizeRule(req, rule);
    if (ACL_HEADER_OPERATIONS.has(req.operation)) req.requestedAcl = await this.acls.fromHeaders(req);
  }

  private async authorizeRule(req: S3Request, rule: AccessRule): Promise<void> {
    const user = req.owner;
    if (rule === 'authenticated') {
      if (!user) throw denied();
      return;
    }
    if (!req.bucket) throw denied();
    const bucket = await this.buckets.get(req.bucket);
    req.bucketInfo = bucket;
    if (rule === 'bucket-write' && req.header('x-amz-copy-source') !== undefined) req.concealsExistence = await this.mayNotListCopySource(req);
    const gated = !!(bucket.policy || bucket.publicAccessBlock || bucket.objectOwnership === 'BucketOwnerEnforced');
    if (gated && (await this.policies.check(req, bucket)) === 'allowed') return;
    if (user && user.id === bucket.owner.id) return;
    if (rule === 'object-read' || rule === 'object-acp') {
      // decided by the handler from the object's ACL; whether the key exists stays hidden from a caller who may not list
      req.concealsExistence = bucket.policy ? !(await this.policies.mayList(req, bucket)) : !bucketAclGrants(bucket, 'READ', user?.id, req.aclMode);
      return;
    }
    const permission = RULE_PERMISSIONS[rule];
    if (permission && bucketAclGrants(bucket, permission, user?.id, req.aclMode)) return;
    throw denied();
  }

  /**
   * For object reads (READ) and object ACL reads and writes (READ_ACP, WRITE_ACP): the bucket
   * policy, the object's owner, the bucket owner under BucketOwnerEnforced (who then owns every
   * object), or an object ACL grant (as far as `req.aclMode` counts it). As on S3, the owner of a
   * bucket with ACLs enabled does not read another user's object, or its ACL, without a grant
   * (bucket-owner-read / bucket-owner-full-control give one); deleting it stays a bucket write.
   */
  isObjectAllowed(req: S3Request, objectOwnerId: string, acl: StoredAcl | undefined, permission: AclPermission = 'READ'): boolean {
    if (req.accessGranted) return true;
    const user = req.owner?.id;
    const bucket = req.bucketInfo;
    const bucketOwns = bucket?.objectOwnership === 'BucketOwnerEnforced' && user === bucket.owner.id;
    if (user !== undefined && (user === objectOwnerId || bucketOwns)) return true;
    const bucketOwner = bucket?.owner;
    return aclGrantsPermission(decodeAcl(acl, { id: objectOwnerId }, bucketOwner), permission, { userId: user }, req.aclMode);
  }

  /** For GET/HEAD object: `isObjectAllowed` for READ. */
  isObjectReadAllowed(req: S3Request, objectOwnerId: string, acl: StoredAcl | undefined): boolean {
    return this.isObjectAllowed(req, objectOwnerId, acl, 'READ');
  }

  /** For CopyObject / UploadPartCopy: whether the caller may read the source version, as its own bucket's policy and ACLs decide. */
  mayReadCopySource(req: S3Request, source: Bucket, key: string, versionId: string | undefined, version: { owner: { id: string }; meta: { acl?: StoredAcl } }): Promise<boolean> {
    return this.policies.mayReadCopySource(req, source, key, versionId, version.owner.id, version.meta.acl);
  }

  /** Whether the caller may not list the copy source's bucket (then a missing source is 403, as on S3). */
  private async mayNotListCopySource(req: S3Request): Promise<boolean> {
    let sourceBucket;
    try {
      sourceBucket = await this.buckets.get(parseCopySource(req.header('x-amz-copy-source')!).bucket);
    } catch {
      return false; // a bad header or a missing bucket: the handler answers it
    }
    const user = req.owner;
    return !(user && user.id === sourceBucket.owner.id) && !bucketAclGrants(sourceBucket, 'READ', user?.id);
  }
}
