import { accessOperation } from './access-operations';

/** Facts about a request that decide which S3 operation it is. */
export interface OperationInput {
  method: string;
  bucket?: string;
  key?: string;
  has(param: string): boolean;
  query(param: string): string | undefined;
  header(name: string): string | undefined;
}

/** Bucket sub-resources we do not implement: GET answers with the "not configured" error S3 gives. */
const UNCONFIGURED_GET: Record<string, [code: string, message: string]> = {
  policy: ['NoSuchBucketPolicy', 'The bucket policy does not exist'],
  website: ['NoSuchWebsiteConfiguration', 'The specified bucket does not have a website configuration'],
  replication: ['ReplicationConfigurationNotFoundError', 'The replication configuration was not found'],
  'object-lock': ['ObjectLockConfigurationNotFoundError', 'Object Lock configuration does not exist for this bucket'],
  ownershipControls: ['OwnershipControlsNotFoundError', 'The bucket ownership controls were not found'],
  publicAccessBlock: ['NoSuchPublicAccessBlockConfiguration', 'The public access block configuration was not found'],
};

export function unconfiguredSubresource(input: OperationInput): [string, string] | undefined {
  if (input.method !== 'GET' || input.key !== undefined) return undefined;
  for (const [param, error] of Object.entries(UNCONFIGURED_GET)) if (input.has(param)) return error;
  return undefined;
}

/**
 * Bucket configuration sets we cannot store (analytics, metrics, inventory, Intelligent-Tiering:
 * their PUT is NotImplemented): a GET lists none, as S3 does for a bucket that has none, and a GET
 * of one `id` finds none.
 */
export const CONFIGURATION_SETS: Record<string, { list: string; get: string; listRoot: string }> = {
  analytics: {
    list: 'ListBucketAnalyticsConfigurations',
    get: 'GetBucketAnalyticsConfiguration',
    listRoot: 'ListBucketAnalyticsConfigurationResult',
  },
  metrics: {
    list: 'ListBucketMetricsConfigurations',
    get: 'GetBucketMetricsConfiguration',
    listRoot: 'ListMetricsConfigurationsResult',
  },
  inventory: {
    list: 'ListBucketInventoryConfigurations',
    get: 'GetBucketInventoryConfiguration',
    listRoot: 'ListInventoryConfigurationsResult',
  },
  'intelligent-tiering': {
    list: 'ListBucketIntelligentTieringConfigurations',
    get: 'GetBucketIntelligentTieringConfiguration',
    listRoot: 'ListBucketIntelligentTieringConfigurationsOutput',
  },
};

function configurationSetOperation(r: OperationInput): string | undefined {
  if (r.method !== 'GET') return undefined;
  const param = Object.keys(CONFIGURATION_SETS).find((p) => r.has(p));
  if (param === undefined) return undefined;
  return r.has('id') ? CONFIGURATION_SETS[param]!.get : CONFIGURATION_SETS[param]!.list;
}

/** The bucket default-encryption operations (handlers/bucket/bucket-encryption.handler.ts). */
const ENCRYPTION_OPERATIONS: Record<string, string> = { PUT: 'PutBucketEncryption', GET: 'GetBucketEncryption', DELETE: 'DeleteBucketEncryption' };

const UNSUPPORTED_SUBRESOURCES = [
  'policy', 'website', 'encryption', 'replication', 'object-lock', 'ownershipControls', 'publicAccessBlock',
  'logging', 'notification', 'accelerate', 'requestPayment', 'analytics', 'inventory', 'metrics', 'intelligent-tiering',
  'legal-hold', 'retention', 'restore', 'select', 'torrent',
];

/**
 * Maps method + addressing + sub-resources to the S3 operation name (as in the S3 API reference).
 * Returns `NotImplemented:<what>` for sub-resources we do not serve.
 */
export function resolveOperation(r: OperationInput): string {
  const { method } = r;
  if (r.bucket === undefined) {
    if (method === 'GET') return 'ListBuckets';
    return 'MethodNotAllowed';
  }
  if (r.key === undefined) {
    const access = accessOperation(r);
    if (access) return access;
    if (r.has('encryption') && ENCRYPTION_OPERATIONS[method]) return ENCRYPTION_OPERATIONS[method];
    if (unconfiguredSubresource(r)) return 'GetUnconfiguredBucketSubresource';
    if (method === 'GET' && r.has('logging')) return 'GetBucketLogging';
    if (method === 'GET' && r.has('notification')) return 'GetBucketNotificationConfiguration';
    if (method === 'GET' && r.has('requestPayment')) return 'GetBucketRequestPayment';
    if (method === 'GET' && r.has('accelerate')) return 'GetBucketAccelerateConfiguration';
    const configurationSet = configurationSetOperation(r);
    if (configurationSet) return configurationSet;
    const unsupported = UNSUPPORTED_SUBRESOURCES.find((s) => r.has(s));
    if (unsupported) return `NotImplemented:${unsupported}`;
    switch (method) {
      case 'PUT':
        if (r.has('versioning')) return 'PutBucketVersioning';
        if (r.has('tagging')) return 'PutBucketTagging';
        if (r.has('lifecycle')) return 'PutBucketLifecycleConfiguration';
        if (r.has('acl')) return 'PutBucketAcl';
        if (r.has('cors')) return 'PutBucketCors';
        return 'CreateBucket';
      case 'GET':
        if (r.has('versioning')) return 'GetBucketVersioning';
        if (r.has('tagging')) return 'GetBucketTagging';
        if (r.has('lifecycle')) return 'GetBucketLifecycleConfiguration';
        if (r.has('location')) return 'GetBucketLocation';
        if (r.has('acl')) return 'GetBucketAcl';
        if (r.has('cors')) return 'GetBucketCors';
        if (r.has('versions')) return 'ListObjectVersions';
        if (r.has('uploads')) return 'ListMultipartUploads';
        if (r.query('list-type') === '2') return 'ListObjectsV2';
        return 'ListObjects';
      case 'HEAD':
        return 'HeadBucket';
      case 'DELETE':
        if (r.has('tagging')) return 'DeleteBucketTagging';
        if (r.has('lifecycle')) return 'DeleteBucketLifecycle';
        if (r.has('cors')) return 'DeleteBucketCors';
        return 'DeleteBucket';
      case 'POST':
        if (r.has('delete')) return 'DeleteObjects';
        return 'PostObject';
      default:
        return 'MethodNotAllowed';
    }
  }
  const unsupported = UNSUPPORTED_SUBRESOURCES.find((s) => r.has(s));
  if (unsupported) return `NotImplemented:${unsupported}`;
  switch (method) {
    case 'PUT':
      if (r.has('uploadId') && r.has('partNumber')) return r.header('x-amz-copy-source') ? 'UploadPartCopy' : 'UploadPart';
      if (r.has('tagging')) return 'PutObjectTagging';
      if (r.has('acl')) return 'PutObjectAcl';
      if (r.header('x-amz-copy-source')) return 'CopyObject';
      return 'PutObject';
    case 'GET':
      if (r.has('uploadId')) return 'ListParts';
      if (r.has('tagging')) return 'GetObjectTagging';
      if (r.has('acl')) return 'GetObjectAcl';
      if (r.has('attributes')) return 'GetObjectAttributes';
      return 'GetObject';
    case 'HEAD':
      return 'HeadObject';
    case 'DELETE':
      if (r.has('uploadId')) return 'AbortMultipartUpload';
      if (r.has('tagging')) return 'DeleteObjectTagging';
      return 'DeleteObject';
    case 'POST':
      if (r.has('uploads')) return 'CreateMultipartUpload';
      if (r.has('uploadId')) return 'CompleteMultipartUpload';
      return 'NotImplemented:POST';
    default:
      return 'MethodNotAllowed';
  }
}
