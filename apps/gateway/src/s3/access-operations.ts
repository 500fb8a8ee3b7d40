import { actionFor, OperationAction } from '@ostore/s3/policy';

/** What routing an access operation needs of a request (a subset of operations.ts's OperationInput). */
interface RequestFacts {
  method: string;
  key?: string;
  has(param: string): boolean;
  query(param: string): string | undefined;
}

const ROUTES: [method: string, param: string, operation: string][] = [
  ['PUT', 'policy', 'PutBucketPolicy'],
  ['GET', 'policy', 'GetBucketPolicy'],
  ['DELETE', 'policy', 'DeleteBucketPolicy'],
  ['GET', 'policyStatus', 'GetBucketPolicyStatus'],
  ['PUT', 'publicAccessBlock', 'PutPublicAccessBlock'],
  ['GET', 'publicAccessBlock', 'GetPublicAccessBlock'],
  ['DELETE', 'publicAccessBlock', 'DeletePublicAccessBlock'],
  ['PUT', 'ownershipControls', 'PutBucketOwnershipControls'],
  ['GET', 'ownershipControls', 'GetBucketOwnershipControls'],
  ['DELETE', 'ownershipControls', 'DeleteBucketOwnershipControls'],
];

/** The bucket access-control operations (policy, policy status, Public Access Block, Object Ownership) a bucket request names, if any. */
export function accessOperation(r: RequestFacts): string | undefined {
  if (r.key !== undefined) return undefined;
  return ROUTES.find(([method, param]) => method === r.method && r.has(param))?.[2];
}

/** GET of a sub-resource no bucket has configured: the operation (and so the action) it stands for. */
const UNCONFIGURED_OPERATIONS: Record<string, string> = {
  cors: 'GetBucketCors',
  website: 'GetBucketWebsite',
  encryption: 'GetBucketEncryption',
  replication: 'GetBucketReplication',
  'object-lock': 'GetObjectLockConfiguration',
  ownershipControls: 'GetBucketOwnershipControls',
  publicAccessBlock: 'GetPublicAccessBlock',
  policy: 'GetBucketPolicy',
};

/**
 * The S3 action a request is authorized as (`OPERATION_ACTIONS` of `@ostore/s3/policy`), the
 * versioned one when it names a version; undefined only for an operation without a row, which
 * the gateway's operations spec forbids.
 */
export function requestAction(r: RequestFacts & { operation: string }): OperationAction | undefined {
  let operation = r.operation;
  if (operation === 'GetUnconfiguredBucketSubresource') {
    const param = Object.keys(UNCONFIGURED_OPERATIONS).find((p) => r.has(p));
    operation = param ? UNCONFIGURED_OPERATIONS[param] : operation;
  }
  return actionFor(operation, r.query('versionId') || undefined);
}
