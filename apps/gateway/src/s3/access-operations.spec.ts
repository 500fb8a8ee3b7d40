import { OPERATION_ACTIONS } from '@ostore/s3/policy';
import { requestAction } from './access-operations';
import * as bucket from './handlers/bucket';
import * as object from './handlers/object';
import * as multipart from './handlers/multipart';

/** Every handler's operation, read from an instance (handlers only keep their dependencies in the constructor). */
const handlerOperations = ([...Object.values(bucket), ...Object.values(object), ...Object.values(multipart)] as unknown[])
  .filter((v): v is new (...args: unknown[]) => { operation: string; handle: unknown } => typeof v === 'function' && typeof (v as { prototype?: { handle?: unknown } }).prototype?.handle === 'function')
  .map((cls) => new cls().operation);

const facts = (operation: string, params: Record<string, string> = {}) => ({
  operation,
  method: 'GET',
  has: (p: string) => p in params,
  query: (p: string) => params[p],
});

describe('the operation → S3 action table', () => {
  it('finds the handlers', () => expect(handlerOperations.length).toBeGreaterThan(40));

  it.each(handlerOperations)('maps %s to an S3 action', (operation) => {
    expect(OPERATION_ACTIONS[operation]?.action).toMatch(/^s3:[A-Za-z]+$/);
  });

  it.each(['cors', 'website', 'encryption', 'replication', 'object-lock', 'ownershipControls'])('maps a GET of unconfigured ?%s', (param) => {
    expect(requestAction(facts('GetUnconfiguredBucketSubresource', { [param]: '' }))?.action).toMatch(/^s3:Get/);
  });

  it.each([
    ['GetObject', {}, 's3:GetObject'],
    ['GetObject', { versionId: 'v' }, 's3:GetObjectVersion'],
    ['HeadObject', { versionId: 'v' }, 's3:GetObjectVersion'],
    ['DeleteObject', { versionId: 'v' }, 's3:DeleteObjectVersion'],
    ['PutObjectTagging', { versionId: 'v' }, 's3:PutObjectVersionTagging'],
    ['GetObjectAcl', { versionId: 'v' }, 's3:GetObjectVersionAcl'],
    ['ListObjectsV2', {}, 's3:ListBucket'],
    ['ListObjectVersions', {}, 's3:ListBucketVersions'],
    ['ListMultipartUploads', {}, 's3:ListBucketMultipartUploads'],
    ['ListParts', {}, 's3:ListMultipartUploadParts'],
    ['UploadPart', {}, 's3:PutObject'],
    ['DeleteBucketTagging', {}, 's3:PutBucketTagging'],
    ['DeleteBucketLifecycle', {}, 's3:PutLifecycleConfiguration'],
    ['PutObject', { versionId: 'v' }, 's3:PutObject'],
  ] as const)('%s %j is %s', (operation, params, action) => {
    expect(requestAction(facts(operation, params))?.action).toBe(action);
  });

  it('has no action for an unknown operation', () => expect(requestAction(facts('Frobnicate'))).toBeUndefined());
});
