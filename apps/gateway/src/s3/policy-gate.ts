import { Inject, Injectable } from '@nestjs/common';
import { S3Error } from '@ostore/s3/protocol';
import type { Bucket, ObjectsService } from '@ostore/s3/core';
import {
  aclGrantsPermission,
  AclMode,
  AclPermission,
  BucketPolicy,
  decideAccess,
  decodeAcl,
  decodePublicAccessBlock,
  evaluatePolicy,
  grantsOnlyOwnerFullControl,
  isPolicyPublic,
  needsExistingObjectTags,
  OWNER_ONLY_ACTIONS,
  parseGrantHeaders,
  resourceArn,
  storedBucketPolicy,
} from '@ostore/s3/policy';
import { Clock } from '@ostore/shared/clock';
import { requestAction } from './access-operations';
import { policyContext } from './policy-context';
import { OBJECTS_SERVICE } from './services';
import type { S3Request } from './s3-request';

const denied = () => new S3Error('AccessDenied', 'Access Denied');
const PUBLIC_CANNED = new Set(['public-read', 'public-read-write', 'authenticated-read']);
const GRANT_HEADERS = ['x-amz-grant-read', 'x-amz-grant-write', 'x-amz-grant-read-acp', 'x-amz-grant-write-acp', 'x-amz-grant-full-control'];
const ACL_WRITES = new Set(['PutBucketAcl', 'PutObjectAcl', 'PutObject', 'CopyObject', 'CreateMultipartUpload']);

/** Whether a request sets an ACL that grants the public (a public canned ACL, or a grant header naming AllUsers / AuthenticatedUsers). */
export function setsPublicAcl(req: S3Request): boolean {
  const canned = req.header('x-amz-acl');
  if (canned !== undefined && PUBLIC_CANNED.has(canned)) return true;
  return GRANT_HEADERS.some((h) => /acs\.amazonaws\.com\/groups\/global\/(AllUsers|AuthenticatedUsers)/.test(req.header(h) ?? ''));
}

/**
 * Whether a canned ACL is one BucketOwnerEnforced refuses: any but `bucket-owner-full-control`, and
 * `private` from the bucket owner. Under BucketOwnerEnforced the bucket owner owns every object, so
 * `private` sent by the bucket owner is an equivalent form of bucket-owner-full-control, which AWS
 * accepts (rclone and s3cmd send it on every PUT by default); from another user, on an object or on
 * the bucket's own ACL, it is refused (ceph/s3-tests' `_test_object_ownership_bucket_owner_enforced`).
 */
export function refusedUnderEnforced(canned: string, isBucketOwner: boolean): boolean {
  return !(canned === 'bucket-owner-full-control' || (canned === 'private' && isBucketOwner));
}

/**
 * Whether a request's headers set an ACL other than the ones BucketOwnerEnforced still accepts: a
 * canned ACL refusedUnderEnforced, or grant headers other than FULL_CONTROL to the bucket owner
 * alone. An AccessControlPolicy body is judged the same way once read (acl-body.ts).
 */
export function setsAcl(req: S3Request, bucketOwnerId: string, isBucketOwner: boolean): boolean {
  const canned = req.header('x-amz-acl');
  if (canned !== undefined && refusedUnderEnforced(canned, isBucketOwner)) return true;
  if (!GRANT_HEADERS.some((h) => req.header(h) !== undefined)) return false;
  const grants = parseGrantHeaders((name) => req.header(name));
  return !grants || !grantsOnlyOwnerFullControl(grants, bucketOwnerId);
}

/**
 * The canned ACL of a browser POST upload's `acl` field, checked as PutObject's `x-amz-acl` is by
 * the gate: AccessControlListNotSupported under BucketOwnerEnforced (refusedUnderEnforced), and
 * AccessDenied for a public one under BlockPublicAcls.
 */
export function checkFormAcl(bucket: Bucket, canned: string, callerId: string | undefined): void {
  if (bucket.objectOwnership === 'BucketOwnerEnforced' && refusedUnderEnforced(canned, callerId === bucket.owner.id))
    throw new S3Error('AccessControlListNotSupported', 'The bucket does not allow ACLs');
  if (PUBLIC_CANNED.has(canned) && decodePublicAccessBlock(bucket.publicAccessBlock)?.blockPublicAcls) throw denied();
}

/** Which grants count: none under BucketOwnerEnforced, the non-public ones under IgnorePublicAcls (or RestrictPublicBuckets on a public policy). */
const aclModeOf = (enforced: boolean, ignorePublic: boolean): AclMode => (enforced ? 'none' : ignorePublic ? 'non-public' : 'all');

/** Whether a bucket's ACL grants the caller `permission`, counting the grants `mode` lets count. */
export function bucketAclGrants(bucket: Bucket, permission: AclPermission, userId: string | undefined, mode: AclMode = 'all'): boolean {
  return aclGrantsPermission(decodeAcl(bucket.acl, bucket.owner), permission, { userId }, mode);
}

/** What the gate decided for a request it did not refuse. */
export type GateVerdict = 'allowed' | 'acl';

/**
 * The bucket-policy, Public Access Block and Object Ownership step of authorization, run only for
 * buckets that have a policy, a block or BucketOwnerEnforced (a bucket without any costs its callers
 * nothing here). Refuses what an explicit deny, RestrictPublicBuckets or BlockPublicAcls refuse,
 * and an ACL on a BucketOwnerEnforced bucket (AccessControlListNotSupported; ACLs grant nothing there); answers `allowed` when ownership or the policy
 * allows the request (then no ACL is consulted), else `acl`: the caller's ACL rules decide, with
 * public ACLs ignored under IgnorePublicAcls and all of them under BucketOwnerEnforced (`req.aclMode`).
 */
@Injectable()
export class PolicyGate {
  constructor(
    private readonly clock: Clock,
    @Inject(OBJECTS_SERVICE) private readonly objects: ObjectsService,
  ) {}

  async check(req: S3Request, bucket: Bucket): Promise<GateVerdict> {
    const policy = bucket.policy ? storedBucketPolicy(bucket.policy, bucket.name) : undefined;
    const pab = decodePublicAccessBlock(bucket.publicAccessBlock);
    const isOwner = req.owner?.id === bucket.owner.id;
    const act = requestAction(req);
    if (!act) throw new S3Error('AccessDenied', `Access Denied: ${req.operation} has no S3 action`);
    const verdict = await this.evaluate(req, bucket, policy, act.action, act.target === 'object' ? req.key : undefined);
    if (OWNER_ONLY_ACTIONS.has(act.action) && !isOwner) {
      // AWS: a caller of another account that the policy allows gets 405, anyone else 403
      if (verdict === 'Allow') throw new S3Error('MethodNotAllowed', 'The specified method is not allowed against this resource.', { extra: { Method: req.method, ResourceType: 'BUCKET' } });
      throw denied();
    }
    const enforced = bucket.objectOwnership === 'BucketOwnerEnforced';
    if (enforced && ACL_WRITES.has(req.operation) && setsAcl(req, bucket.owner.id, isOwner))
      throw new S3Error('AccessControlListNotSupported', 'The bucket does not allow ACLs');
    if (pab?.blockPublicAcls && ACL_WRITES.has(req.operation) && setsPublicAcl(req)) throw denied();
    const restrict = !!pab?.restrictPublicBuckets && isPolicyPublic(policy);
    req.aclMode = aclModeOf(enforced, !!pab?.ignorePublicAcls || restrict);
    if (verdict === 'Deny' && !(isOwner && OWNER_ONLY_ACTIONS.has(act.action))) throw denied();
    if (isOwner) return 'allowed';
    if (restrict) throw denied();
    // DeleteObjects names its keys in the body: each is authorized on its own (mayDeleteKey)
    if (req.operation === 'DeleteObjects' && policy) return 'allowed';
    if (verdict !== 'Allow') return 'acl';
    req.accessGranted = true;
    if (act.target === 'object') req.concealsExistence = !(await this.mayList(req, bucket, policy));
    return 'allowed';
  }

  /**
   * Whether the caller may delete one key of a DeleteObjects request. Without a policy, or for the
   * owner, the request's own authorization covers every key; otherwise the policy decides per key
   * (s3:DeleteObject or s3:DeleteObjectVersion on the key's ARN) and, where it is silent, the
   * bucket's ACL as for DeleteObject.
   */
  async mayDeleteKey(req: S3Request, key: string, versionId: string | undefined): Promise<boolean> {
    const bucket = req.target;
    if (!bucket.policy || req.owner?.id === bucket.owner.id) return true;
    const action = versionId !== undefined ? 's3:DeleteObjectVersion' : 's3:DeleteObject';
    const verdict = await this.evaluate(req, bucket, storedBucketPolicy(bucket.policy, bucket.name), action, key, versionId);
    return decideAccess({ action, isBucketOwner: false, policy: verdict, aclGrants: bucketAclGrants(bucket, 'WRITE', req.owner?.id, req.aclMode) });
  }

  /**
   * For CopyObject / UploadPartCopy: whether the caller may read the source as a GetObject (or,
   * naming a version, GetObjectVersion) on the source's own bucket would allow — its policy, Public
   * Access Block and Object Ownership, its owner and the source object's owner and ACL. The
   * destination bucket grants nothing here (https://docs.aws.amazon.com/AmazonS3/latest/API/API_CopyObject.html).
   */
  async mayReadCopySource(req: S3Request, source: Bucket, key: string, versionId: string | undefined, objectOwnerId: string, acl: string | undefined): Promise<boolean> {
    const action = versionId !== undefined ? 's3:GetObjectVersion' : 's3:GetObject';
    const policy = source.policy ? storedBucketPolicy(source.policy, source.name) : undefined;
    const pab = decodePublicAccessBlock(source.publicAccessBlock);
    const restrict = !!pab?.restrictPublicBuckets && isPolicyPublic(policy);
    const verdict = await this.evaluate(req, source, policy, action, key, versionId);
    const userId = req.owner?.id;
    const mode = aclModeOf(source.objectOwnership === 'BucketOwnerEnforced', !!pab?.ignorePublicAcls || restrict);
    const aclAllows = userId === objectOwnerId || aclGrantsPermission(decodeAcl(acl, { id: objectOwnerId }, source.owner), 'READ', { userId }, mode);
    // the source bucket's owner reads its objects as a bucket owner only where it owns them all
    // (BucketOwnerEnforced) or this one; with ACLs enabled another writer's object needs a grant
    const ownsObjects = source.objectOwnership === 'BucketOwnerEnforced' || userId === objectOwnerId;
    const isBucketOwner = userId !== undefined && userId === source.owner.id && ownsObjects;
    return decideAccess({ action, isBucketOwner, policy: verdict, aclGrants: aclAllows, restrictPublicPolicy: restrict });
  }

  /**
   * Whether the caller of an object request may learn that its key does not exist: S3 answers 404
   * only to a caller with s3:ListBucket on the bucket ("If you have the s3:ListBucket permission on
   * the bucket, Amazon S3 returns an HTTP status code 404", API_HeadObject), else 403. The policy's
   * s3:ListBucket is evaluated with the key as `s3:prefix` (a listing of that prefix would show
   * the key), so a statement allowing ListBucket on `public/*` reveals only keys under `public/`;
   * where the policy is silent the bucket ACL's READ decides, and an explicit deny conceals.
   */
  async mayList(req: S3Request, bucket: Bucket, policy = bucket.policy ? storedBucketPolicy(bucket.policy, bucket.name) : undefined): Promise<boolean> {
    const prefix = req.key !== undefined ? { 's3:prefix': [req.key] } : undefined;
    const verdict = await this.evaluate(req, bucket, policy, 's3:ListBucket', undefined, undefined, prefix);
    if (verdict !== 'Implicit') return verdict === 'Allow';
    return bucketAclGrants(bucket, 'READ', req.owner?.id, req.aclMode);
  }

  private async evaluate(
    req: S3Request,
    bucket: Bucket,
    policy: BucketPolicy | undefined,
    action: string,
    key: string | undefined,
    versionId?: string,
    extra?: Record<string, string[]>,
  ) {
    if (!policy) return 'Implicit' as const;
    let tags: Record<string, string> | undefined;
    if (key !== undefined && needsExistingObjectTags(policy)) {
      tags = await this.objects.getTags(bucket, key, versionId ?? (req.query('versionId') || undefined)).then(
        (r) => r.tags,
        () => undefined,
      );
    }
    const context = policyContext(req, this.clock.now(), tags);
    if (versionId !== undefined) context['s3:versionid'] = [versionId];
    Object.assign(context, extra);
    return evaluatePolicy(policy, { userId: req.owner?.id, action, resource: resourceArn(bucket.name, key), context });
  }
}
