import { S3Error } from '@ostore/s3/protocol';
import { isObjectOwnership, ObjectOwnership } from '@ostore/s3/policy';
import type { S3Request } from '../../s3-request';
import { refuseAclWithEnforced } from './ownership-controls.handler';

/**
 * The Object Ownership of a CreateBucket: its `x-amz-object-ownership`, validated (InvalidArgument
 * for an unknown value), or the configured default (AWS's: BucketOwnerEnforced); under
 * BucketOwnerEnforced an ACL granting anyone but the owner is InvalidBucketAclWithObjectOwnership.
 */
export function objectOwnershipOf(req: S3Request, acl: string, byDefault: ObjectOwnership): ObjectOwnership {
  const value = req.header('x-amz-object-ownership') ?? byDefault;
  if (!isObjectOwnership(value))
    throw new S3Error('InvalidArgument', 'Invalid x-amz-object-ownership header', { extra: { ArgumentName: 'x-amz-object-ownership', ArgumentValue: value } });
  refuseAclWithEnforced(value, acl, req.owner!);
  return value;
}
