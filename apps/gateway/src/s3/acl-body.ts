import { S3Error } from '@ostore/s3/protocol';
import { AclError, decodePublicAccessBlock, encodeAclGrants, grantsOnlyOwnerFullControl, isAclPublic } from '@ostore/s3/policy';
import { parseAclXml } from './acl-xml';
import type { AclResolver } from './acl-request';
import { readVerifiedBody } from './request-body';
import type { S3Request } from './s3-request';

/**
 * The stored ACL a PutBucketAcl / PutObjectAcl sets: its `x-amz-acl` / `x-amz-grant-*` headers
 * (resolved by the access check), or its AccessControlPolicy body, whose Owner must be the
 * resource's owner (AccessDenied otherwise) and whose grants must resolve. Headers and a body
 * together are UnexpectedContent, neither is MalformedACLError; a public body on a bucket with
 * BlockPublicAcls is AccessDenied, and on a BucketOwnerEnforced bucket a body that grants more
 * than FULL_CONTROL to the bucket owner is AccessControlListNotSupported (the headers' cases are
 * refused by the policy gate).
 */
export async function aclToSet(req: S3Request, resolver: AclResolver, ownerId: string): Promise<string> {
  const body = await readVerifiedBody(req, 'all');
  if (body.length === 0) {
    if (req.requestedAcl === undefined) throw new AclError('MalformedACLError', 'The XML you provided was not well-formed or did not validate against our published schema');
    return req.requestedAcl;
  }
  if (req.requestedAcl !== undefined) throw new S3Error('UnexpectedContent', 'This request does not support content');
  const doc = parseAclXml(body.toString('utf8'));
  if (doc.ownerId !== undefined && doc.ownerId !== ownerId) throw new S3Error('AccessDenied', 'Access Denied');
  const grants = await resolver.resolve(doc.grants);
  if (req.target.objectOwnership === 'BucketOwnerEnforced' && !grantsOnlyOwnerFullControl(grants, req.target.owner.id))
    throw new S3Error('AccessControlListNotSupported', 'The bucket does not allow ACLs');
  if (isAclPublic(grants) && decodePublicAccessBlock(req.target.publicAccessBlock)?.blockPublicAcls) throw new S3Error('AccessDenied', 'Access Denied');
  return encodeAclGrants(grants);
}
