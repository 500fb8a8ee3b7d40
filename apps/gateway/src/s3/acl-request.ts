import { Inject, Injectable } from '@nestjs/common';
import type { UsersService } from '@ostore/s3/core';
import { AclError, AclGrant, encodeAclGrants, encodeCannedAcl, parseGrantHeaders, RequestedGrant } from '@ostore/s3/policy';
import { cannedAclOf } from './object-http';
import { USERS_SERVICE } from './services';
import type { S3Request } from './s3-request';

/** The operations that take an ACL in `x-amz-acl` or `x-amz-grant-*` headers. */
export const ACL_HEADER_OPERATIONS: ReadonlySet<string> = new Set(['CreateBucket', 'PutBucketAcl', 'PutObjectAcl', 'PutObject', 'CopyObject', 'CreateMultipartUpload']);

/**
 * Turns the ACL a request names into grants of real users: a canonical id must name a user
 * (InvalidArgument, as S3 answers an unknown id); an email address names the user whose id it is
 * (users here have no separate address), else UnresolvableGrantByEmailAddress. Display names are
 * taken from the user records, so that GetBucketAcl / GetObjectAcl can show them.
 */
@Injectable()
export class AclResolver {
  constructor(@Inject(USERS_SERVICE) private readonly users: UsersService) {}

  /** The grants, resolved; the first unresolvable grantee refuses the whole request. */
  async resolve(grants: readonly RequestedGrant[]): Promise<AclGrant[]> {
    const resolved: AclGrant[] = [];
    for (const { grantee, permission } of grants) {
      if (grantee.type === 'Group') {
        resolved.push({ grantee, permission });
        continue;
      }
      const id = grantee.type === 'CanonicalUser' ? grantee.id : grantee.email;
      // an empty id or address names no one (and is no key to look up)
      const user = id ? await this.users.getUser(id) : undefined;
      if (!user && grantee.type === 'Email')
        throw new AclError('UnresolvableGrantByEmailAddress', 'The e-mail address you provided does not match any account on record.', { name: 'emailAddress', value: id });
      if (!user) throw new AclError('InvalidArgument', 'Invalid id', { name: 'CanonicalUser/ID', value: id });
      resolved.push({ grantee: { type: 'CanonicalUser', id: user.id, displayName: user.displayName }, permission });
    }
    return resolved;
  }

  /**
   * The stored ACL a request's headers set: a canned `x-amz-acl` as its name, `x-amz-grant-*` as
   * a resolved grant list; undefined when it has neither. Both together are InvalidRequest.
   */
  async fromHeaders(req: S3Request): Promise<string | undefined> {
    const canned = cannedAclOf(req);
    if (canned !== undefined) return encodeCannedAcl(canned);
    const requested = parseGrantHeaders((name) => req.header(name));
    return requested ? encodeAclGrants(await this.resolve(requested)) : undefined;
  }
}
