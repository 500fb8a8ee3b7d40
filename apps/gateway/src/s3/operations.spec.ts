import { OperationInput, resolveOperation } from './operations';

function input(method: string, path: string, query = '', headers: Record<string, string> = {}): OperationInput {
  const [bucket, ...rest] = path.split('/').filter((_, i, a) => i < 1 || a.length > 1);
  const params = new URLSearchParams(query);
  return {
    method,
    bucket: bucket || undefined,
    key: rest.length ? rest.join('/') : undefined,
    has: (p) => params.has(p),
    query: (p) => params.get(p) ?? undefined,
    header: (h) => headers[h],
  };
}

describe(resolveOperation.name, () => {
  it.each([
    ['GET', '', '', 'ListBuckets'],
    ['PUT', 'b', '', 'CreateBucket'],
    ['PUT', 'b', 'versioning', 'PutBucketVersioning'],
    ['GET', 'b', 'list-type=2&prefix=a', 'ListObjectsV2'],
    ['GET', 'b', 'prefix=a', 'ListObjects'],
    ['GET', 'b', 'versions', 'ListObjectVersions'],
    ['GET', 'b', 'uploads', 'ListMultipartUploads'],
    ['GET', 'b', 'location', 'GetBucketLocation'],
    ['POST', 'b', 'delete', 'DeleteObjects'],
    ['DELETE', 'b', 'lifecycle', 'DeleteBucketLifecycle'],
    ['HEAD', 'b', '', 'HeadBucket'],
    ['PUT', 'b/k', '', 'PutObject'],
    ['PUT', 'b/k', 'partNumber=1&uploadId=u', 'UploadPart'],
    ['POST', 'b/k', 'uploads', 'CreateMultipartUpload'],
    ['POST', 'b/k', 'uploadId=u', 'CompleteMultipartUpload'],
    ['DELETE', 'b/k', 'uploadId=u', 'AbortMultipartUpload'],
    ['GET', 'b/k', 'uploadId=u', 'ListParts'],
    ['GET', 'b/k', 'tagging', 'GetObjectTagging'],
    ['GET', 'b/k', 'attributes', 'GetObjectAttributes'],
    ['GET', 'b/k', 'torrent', 'NotImplemented:torrent'],
    ['HEAD', 'b/k', 'versionId=x', 'HeadObject'],
    ['GET', 'b', 'website', 'GetUnconfiguredBucketSubresource'],
    ['GET', 'b', 'analytics', 'ListBucketAnalyticsConfigurations'],
    ['GET', 'b', 'analytics&id=a', 'GetBucketAnalyticsConfiguration'],
    ['GET', 'b', 'metrics', 'ListBucketMetricsConfigurations'],
    ['GET', 'b', 'metrics&id=m', 'GetBucketMetricsConfiguration'],
    ['GET', 'b', 'inventory', 'ListBucketInventoryConfigurations'],
    ['GET', 'b', 'inventory&id=i', 'GetBucketInventoryConfiguration'],
    ['GET', 'b', 'intelligent-tiering', 'ListBucketIntelligentTieringConfigurations'],
    ['GET', 'b', 'intelligent-tiering&id=t', 'GetBucketIntelligentTieringConfiguration'],
    ['PUT', 'b', 'metrics&id=m', 'NotImplemented:metrics'],
    ['DELETE', 'b', 'inventory&id=i', 'NotImplemented:inventory'],
    ['GET', 'b', 'policy', 'GetBucketPolicy'],
    ['PUT', 'b', 'policy', 'PutBucketPolicy'],
    ['DELETE', 'b', 'policy', 'DeleteBucketPolicy'],
    ['GET', 'b', 'policyStatus', 'GetBucketPolicyStatus'],
    ['PUT', 'b', 'publicAccessBlock', 'PutPublicAccessBlock'],
    ['GET', 'b', 'publicAccessBlock', 'GetPublicAccessBlock'],
    ['DELETE', 'b', 'publicAccessBlock', 'DeletePublicAccessBlock'],
    ['PUT', 'b/k', 'policy', 'NotImplemented:policy'],
    ['PATCH', 'b/k', '', 'MethodNotAllowed'],
    ['PUT', 'b', 'cors', 'PutBucketCors'],
    ['GET', 'b', 'cors', 'GetBucketCors'],
    ['DELETE', 'b', 'cors', 'DeleteBucketCors'],
    ['POST', 'b', '', 'PostObject'],
  ])('%s /%s?%s is %s', (method, path, query, expected) => {
    expect(resolveOperation(input(method, path, query))).toBe(expected);
  });

  it('tells copies from uploads by x-amz-copy-source', () => {
    expect(resolveOperation(input('PUT', 'b/k', '', { 'x-amz-copy-source': '/a/b' }))).toBe('CopyObject');
    expect(resolveOperation(input('PUT', 'b/k', 'partNumber=2&uploadId=u', { 'x-amz-copy-source': '/a/b' }))).toBe('UploadPartCopy');
  });
});
