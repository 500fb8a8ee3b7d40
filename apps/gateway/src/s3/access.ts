import { Inject, Injectable } from '@nestjs/common';
import { S3Error } from '@ostore/s3/protocol';
import type { BucketsService, CannedAcl } from '@ostore/s3/core';
import { BUCKETS_SERVICE } from './services';
import type { AccessRule } from './s3-handler';
import type { S3Request } from './s3-request';

const denied = () => new S3Error('AccessDenied', 'Access Denied');

/** Whether a canned ACL lets the principal read. */
export function aclAllowsRead(acl: CannedAcl | undefined, authenticated: boolean): boolean {
  return acl === 'public-read' || acl === 'public-read-write' || (acl === 'authenticated-read' && authenticated);
}

/**
 * Canned-ACL authorization. The bucket owner may do everything; others only what the bucket's
 * (or, for object reads, the object's) canned ACL grants. Object ACLs are checked by the GET/HEAD
 * handlers once they have the version in hand (`isObjectReadAllowed`).
 */
@Injectable()
export class AccessControl {
  constructor(@Inject(BUCKETS_SERVICE) private readonly buckets: BucketsService) {}

  async authorize(req: S3Request, rule: AccessRule): Promise<void> {
    const user = req.owner;
    if (rule === 'authenticated') {
      if (!user) throw denied();
      return;
    }
    if (!req.bucket) throw denied();
    const bucket = await this.buckets.get(req.bucket);
    req.bucketInfo = bucket;
    if (user && user.id === bucket.owner.id) return;
    switch (rule) {
      case 'bucket-owner':
        throw denied();
      case 'bucket-read':
        if (aclAllowsRead(bucket.acl, !!user)) return;
        throw denied();
      case 'bucket-write':
        if (bucket.acl === 'public-read-write') return;
        throw denied();
      case 'object-read':
        return; // decided by the handler from the object's ACL
    }
  }

  /** For GET/HEAD object: owner of the bucket or object, or an object ACL that grants reading. */
  isObjectReadAllowed(req: S3Request, objectOwnerId: string, acl: CannedAcl | undefined): boolean {
    const user = req.owner;
    if (user && (user.id === req.bucketInfo?.owner.id || user.id === objectOwnerId)) return true;
    return aclAllowsRead(acl, !!user);
  }
}
