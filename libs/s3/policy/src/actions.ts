/**
 * The S3 actions a bucket policy may name (AWS's list for bucket and object resources, from
 * https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazons3.html), the
 * ones this gateway serves and the rest, so a policy written for AWS is accepted as it is.
 */
export const S3_ACTIONS: readonly string[] = [
  'AbortMultipartUpload', 'BypassGovernanceRetention', 'CreateBucket', 'DeleteBucket', 'DeleteBucketOwnershipControls',
  'DeleteBucketPolicy', 'DeleteBucketWebsite', 'DeleteObject', 'DeleteObjectTagging', 'DeleteObjectVersion',
  'DeleteObjectVersionTagging', 'GetAccelerateConfiguration', 'GetAnalyticsConfiguration', 'GetBucketAcl', 'GetBucketCORS',
  'GetBucketLocation', 'GetBucketLogging', 'GetBucketNotification', 'GetBucketObjectLockConfiguration',
  'GetBucketOwnershipControls', 'GetBucketPolicy', 'GetBucketPolicyStatus', 'GetBucketPublicAccessBlock',
  'GetBucketRequestPayment', 'GetBucketTagging', 'GetBucketVersioning', 'GetBucketWebsite', 'GetEncryptionConfiguration',
  'GetIntelligentTieringConfiguration', 'GetInventoryConfiguration', 'GetLifecycleConfiguration', 'GetMetricsConfiguration',
  'GetObject', 'GetObjectAcl', 'GetObjectAttributes', 'GetObjectLegalHold', 'GetObjectRetention', 'GetObjectTagging',
  'GetObjectTorrent', 'GetObjectVersion', 'GetObjectVersionAcl', 'GetObjectVersionAttributes', 'GetObjectVersionForReplication',
  'GetObjectVersionTagging', 'GetObjectVersionTorrent', 'GetReplicationConfiguration', 'ListAllMyBuckets', 'ListBucket',
  'ListBucketMultipartUploads', 'ListBucketVersions', 'ListMultipartUploadParts', 'ObjectOwnerOverrideToBucketOwner',
  'PutAccelerateConfiguration', 'PutAnalyticsConfiguration', 'PutBucketAcl', 'PutBucketCORS', 'PutBucketLogging',
  'PutBucketNotification', 'PutBucketObjectLockConfiguration', 'PutBucketOwnershipControls', 'PutBucketPolicy',
  'PutBucketPublicAccessBlock', 'PutBucketRequestPayment', 'PutBucketTagging', 'PutBucketVersioning', 'PutBucketWebsite',
  'PutEncryptionConfiguration', 'PutIntelligentTieringConfiguration', 'PutInventoryConfiguration', 'PutLifecycleConfiguration',
  'PutMetricsConfiguration', 'PutObject', 'PutObjectAcl', 'PutObjectLegalHold', 'PutObjectRetention', 'PutObjectTagging',
  'PutObjectVersionAcl', 'PutObjectVersionTagging', 'PutReplicationConfiguration', 'ReplicateDelete', 'ReplicateObject',
  'ReplicateTags', 'RestoreObject',
].map((a) => `s3:${a}`);

/** What an operation's action applies to: the bucket, an object (key) in it, or no bucket at all. */
export type ActionTarget = 'bucket' | 'object' | 'service';

/** The S3 action an operation is authorized as, and for a versioned request the one it becomes. */
export interface OperationAction {
  action: string;
  /** The action when the request names a version (`?versionId=`), e.g. s3:GetObjectVersion. */
  versioned?: string;
  target: ActionTarget;
}

const bucket = (action: string): OperationAction => ({ action: `s3:${action}`, target: 'bucket' });
const object = (action: string, versioned?: string): OperationAction => ({
  action: `s3:${action}`,
  versioned: versioned && `s3:${versioned}`,
  target: 'object',
});

/**
 * Every S3 operation the gateway routes, by its API name, with the action a policy grants it by
 * (AWS's "Actions, resources, and condition keys for Amazon S3" and the operation pages'
 * "Permissions" sections). An operation missing here cannot be authorized: the gateway's spec
 * fails for any handler whose operation has no row.
 */
export const OPERATION_ACTIONS: Readonly<Record<string, OperationAction>> = {
  ListBuckets: { action: 's3:ListAllMyBuckets', target: 'service' },
  CreateBucket: { action: 's3:CreateBucket', target: 'service' },
  DeleteBucket: bucket('DeleteBucket'),
  HeadBucket: bucket('ListBucket'),
  ListObjects: bucket('ListBucket'),
  ListObjectsV2: bucket('ListBucket'),
  ListObjectVersions: bucket('ListBucketVersions'),
  ListMultipartUploads: bucket('ListBucketMultipartUploads'),
  GetBucketLocation: bucket('GetBucketLocation'),
  GetBucketVersioning: bucket('GetBucketVersioning'),
  PutBucketVersioning: bucket('PutBucketVersioning'),
  GetBucketTagging: bucket('GetBucketTagging'),
  PutBucketTagging: bucket('PutBucketTagging'),
  DeleteBucketTagging: bucket('PutBucketTagging'),
  GetBucketLifecycleConfiguration: bucket('GetLifecycleConfiguration'),
  PutBucketLifecycleConfiguration: bucket('PutLifecycleConfiguration'),
  DeleteBucketLifecycle: bucket('PutLifecycleConfiguration'),
  GetBucketAcl: bucket('GetBucketAcl'),
  PutBucketAcl: bucket('PutBucketAcl'),
  GetBucketPolicy: bucket('GetBucketPolicy'),
  PutBucketPolicy: bucket('PutBucketPolicy'),
  DeleteBucketPolicy: bucket('DeleteBucketPolicy'),
  GetBucketPolicyStatus: bucket('GetBucketPolicyStatus'),
  GetBucketOwnershipControls: bucket('GetBucketOwnershipControls'),
  PutBucketOwnershipControls: bucket('PutBucketOwnershipControls'),
  DeleteBucketOwnershipControls: bucket('PutBucketOwnershipControls'),
  GetPublicAccessBlock: bucket('GetBucketPublicAccessBlock'),
  PutPublicAccessBlock: bucket('PutBucketPublicAccessBlock'),
  DeletePublicAccessBlock: bucket('PutBucketPublicAccessBlock'),
  GetBucketCors: bucket('GetBucketCORS'),
  PutBucketCors: bucket('PutBucketCORS'),
  DeleteBucketCors: bucket('PutBucketCORS'),
  GetBucketLogging: bucket('GetBucketLogging'),
  GetBucketNotificationConfiguration: bucket('GetBucketNotification'),
  GetBucketRequestPayment: bucket('GetBucketRequestPayment'),
  GetBucketAccelerateConfiguration: bucket('GetAccelerateConfiguration'),
  ListBucketAnalyticsConfigurations: bucket('GetAnalyticsConfiguration'),
  GetBucketAnalyticsConfiguration: bucket('GetAnalyticsConfiguration'),
  ListBucketMetricsConfigurations: bucket('GetMetricsConfiguration'),
  GetBucketMetricsConfiguration: bucket('GetMetricsConfiguration'),
  ListBucketInventoryConfigurations: bucket('GetInventoryConfiguration'),
  GetBucketInventoryConfiguration: bucket('GetInventoryConfiguration'),
  ListBucketIntelligentTieringConfigurations: bucket('GetIntelligentTieringConfiguration'),
  GetBucketIntelligentTieringConfiguration: bucket('GetIntelligentTieringConfiguration'),
  GetBucketWebsite: bucket('GetBucketWebsite'),
  GetBucketEncryption: bucket('GetEncryptionConfiguration'),
  PutBucketEncryption: bucket('PutEncryptionConfiguration'),
  DeleteBucketEncryption: bucket('PutEncryptionConfiguration'),
  GetBucketReplication: bucket('GetReplicationConfiguration'),
  GetObjectLockConfiguration: bucket('GetBucketObjectLockConfiguration'),
  DeleteObjects: object('DeleteObject', 'DeleteObjectVersion'),
  PutObject: object('PutObject'),
  PostObject: object('PutObject'),
  CopyObject: object('PutObject'),
  GetObject: object('GetObject', 'GetObjectVersion'),
  HeadObject: object('GetObject', 'GetObjectVersion'),
  GetObjectAttributes: object('GetObjectAttributes', 'GetObjectVersionAttributes'),
  DeleteObject: object('DeleteObject', 'DeleteObjectVersion'),
  GetObjectTagging: object('GetObjectTagging', 'GetObjectVersionTagging'),
  PutObjectTagging: object('PutObjectTagging', 'PutObjectVersionTagging'),
  DeleteObjectTagging: object('DeleteObjectTagging', 'DeleteObjectVersionTagging'),
  GetObjectAcl: object('GetObjectAcl', 'GetObjectVersionAcl'),
  PutObjectAcl: object('PutObjectAcl', 'PutObjectVersionAcl'),
  CreateMultipartUpload: object('PutObject'),
  UploadPart: object('PutObject'),
  UploadPartCopy: object('PutObject'),
  CompleteMultipartUpload: object('PutObject'),
  AbortMultipartUpload: object('AbortMultipartUpload'),
  ListParts: object('ListMultipartUploadParts'),
};

/**
 * The action a request of this operation is authorized as (the versioned one when it names a
 * version), or undefined for an operation without a row.
 */
export function actionFor(operation: string, versionId?: string): OperationAction | undefined {
  const row = OPERATION_ACTIONS[operation];
  if (!row) return undefined;
  return versionId !== undefined && row.versioned ? { ...row, action: row.versioned } : row;
}

/** The ARN of a bucket, or of a key in it, as policies name resources. */
export function resourceArn(bucket: string, key?: string): string {
  return key === undefined ? `arn:aws:s3:::${bucket}` : `arn:aws:s3:::${bucket}/${key}`;
}
