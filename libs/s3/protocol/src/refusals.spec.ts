import { S3Error } from './errors';
import { refuseUnsupportedHeaders } from './refusals';

function thrown(fn: () => unknown): S3Error | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof S3Error) return error;
    throw error;
  }
  return undefined;
}

describe(refuseUnsupportedHeaders.name, () => {
  it.each([
    ['PutObject', { 'x-amz-server-side-encryption': 'AES256' }],
    ['PutObject', { 'x-amz-server-side-encryption': 'aws:kms' }],
    ['CopyObject', { 'x-amz-server-side-encryption-aws-kms-key-id': 'k' }],
    ['CreateMultipartUpload', { 'x-amz-server-side-encryption-customer-algorithm': 'AES256' }],
    ['UploadPart', { 'x-amz-server-side-encryption-customer-key': 'a2V5' }],
    ['UploadPartCopy', { 'x-amz-copy-source-server-side-encryption-customer-key-md5': 'bWQ1' }],
    ['CreateBucket', { 'x-amz-bucket-object-lock-enabled': 'true' }],
  ])('%s with %j is NotImplemented (501)', (operation, headers) => {
    expect(thrown(() => refuseUnsupportedHeaders(operation, headers))).toMatchObject({ code: 'NotImplemented', httpStatus: 501 });
  });

  it('an unknown encryption algorithm is InvalidArgument', () => {
    expect(thrown(() => refuseUnsupportedHeaders('PutObject', { 'x-amz-server-side-encryption': 'rot13' }))).toMatchObject({
      code: 'InvalidArgument',
      extra: { ArgumentName: 'x-amz-server-side-encryption', ArgumentValue: 'rot13' },
    });
  });

  it.each(['x-amz-object-lock-mode', 'x-amz-object-lock-retain-until-date', 'x-amz-object-lock-legal-hold'])('%s is InvalidRequest (no bucket has Object Lock)', (header) => {
    for (const operation of ['PutObject', 'CopyObject', 'CreateMultipartUpload']) {
      expect(thrown(() => refuseUnsupportedHeaders(operation, { [header]: 'x' }))).toMatchObject({ code: 'InvalidRequest', httpStatus: 400 });
    }
  });

  it('lets plain requests and operations the headers do not apply to through', () => {
    expect(thrown(() => refuseUnsupportedHeaders('PutObject', { 'content-type': 'text/plain' }))).toBeUndefined();
    expect(thrown(() => refuseUnsupportedHeaders('GetObject', { 'x-amz-object-lock-mode': 'COMPLIANCE' }))).toBeUndefined();
    expect(thrown(() => refuseUnsupportedHeaders('CreateBucket', { 'x-amz-bucket-object-lock-enabled': 'false' }))).toBeUndefined();
  });
});
