import { S3Error } from '@ostore/s3/protocol';
import { isObjectOwnership, ObjectOwnership } from '@ostore/s3/policy';
import type { S3Request } from '../../s3-request';
import { refuseAclWithEnforced } from './ownership-controls.handler';

/**
 * The `x-amz-object-ownership` of a CreateBucket, validated (InvalidArgument for an unknown value;
 * InvalidBucketAclWithObjectOwnership for BucketOwnerEnforced with a public canned ACL or grants).
 * Undefined when the header is absent: the bucket then has no setting (ObjectWriter behaviour).
 */
export function objectOwnershipOf(req: S3Request, acl: string): ObjectOwnership | undefined {
  const value = req.header('x-amz-object-ownership');
  if (value === undefined) return undefined;
  if (!isObjectOwnership(value))
    throw new S3Error('InvalidArgument', 'Invalid x-amz-object-ownership header', { extra: { ArgumentName: 'x-amz-object-ownership', ArgumentValue: value } });
  refuseAclWithEnforced(value, acl, req.owner!);
  return value;
}
