import { Inject, Injectable } from '@nestjs/common';
import { parseCopySource, S3Error } from '@ostore/s3/protocol';
import type { BucketsService, CannedAcl } from '@ostore/s3/core';
import { BUCKETS_SERVICE } from './services';
import { PolicyGate } from './policy-gate';
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

/** Whether a canned ACL lets the principal read. */
export function aclAllowsRead(acl: CannedAcl | undefined, authenticated: boolean): boolean {
  return acl === 'public-read' || acl === 'public-read-write' || (acl === 'authenticated-read' && authenticated);
}

/**
 * Canned-ACL authorization. The bucket owner may do everything; others only what the bucket's
 * (or, for object reads, the object's) canned ACL grants. Object ACLs are checked by the GET/HEAD
 * handlers once they have the version in hand (`isObjectReadAllowed`); for a caller who may not
 * list the bucket, the answer then never tells whether the key exists (`concealsExistence`).
 */
@Injectable()
export class AccessControl {
  constructor(
    @Inject(BUCKETS_SERVICE) private readonly buckets: BucketsService,
    private readonly policies: PolicyGate,
  ) {}

  async authorize(req: S3Request, rule: AccessRule): Promise<void> {
    const user = req.owner;
    if (rule === 'authenticated') {
      if (!user) throw denied();
      return;
    }
    if (!req.bucket) throw denied();
    const bucket = await this.buckets.get(req.bucket);
    req.bucketInfo = bucket;
    if (rule === 'bucket-write' && req.header('x-amz-copy-source') !== undefined) req.concealsExistence = await this.mayNotListCopySource(req);
    if ((bucket.policy || bucket.publicAccessBlock || bucket.objectOwnership === 'BucketOwnerEnforced') && (await this.policies.check(req, bucket)) === 'allowed') return;
    if (user && user.id === bucket.owner.id) return;
    const acl = req.aclsIgnored ? 'private' : bucket.acl;
    switch (rule) {
      case 'bucket-owner':
        throw denied();
      case 'bucket-read':
        if (aclAllowsRead(acl, !!user)) return;
        throw denied();
      case 'bucket-write':
        if (acl === 'public-read-write') return;
        throw denied();
      case 'object-read':
        // decided by the handler from the object's ACL; whether the key exists stays hidden
        req.concealsExistence = !aclAllowsRead(acl, !!user);
        return;
    }
  }

  /** For GET/HEAD object: the bucket policy, the owner of the bucket or object, or an object ACL that grants reading (unless IgnorePublicAcls). */
  isObjectReadAllowed(req: S3Request, objectOwnerId: string, acl: CannedAcl | undefined): boolean {
    if (req.accessGranted) return true;
    return this.isCopySourceReadAllowed(req, req.bucketInfo?.owner.id, objectOwnerId, req.aclsIgnored ? 'private' : acl);
  }

  /**
   * For CopyObject/UploadPartCopy: the owner of the source's bucket or object, or a source ACL
   * that grants reading. The destination bucket the request addressed grants nothing here.
   */
  isCopySourceReadAllowed(req: S3Request, sourceBucketOwnerId: string | undefined, objectOwnerId: string, acl: CannedAcl | undefined): boolean {
    const user = req.owner;
    if (user && (user.id === sourceBucketOwnerId || user.id === objectOwnerId)) return true;
    return aclAllowsRead(acl, !!user);
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
    return !(user && user.id === sourceBucket.owner.id) && !aclAllowsRead(sourceBucket.acl, !!user);
  }
}
