import { S3Error } from './errors';
import { MAX_PUT_OBJECT_BYTES, refuseOversizedPut, refuseUnsupportedHeaders, validateResponseOverrides } from './refusals';

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
    ['CreateMultipartUpload', { 'x-amz-server-side-encryption': 'aws:kms' }],
    ['PutObject', { 'x-amz-server-side-encryption': 'aws:kms' }],
    ['CopyObject', { 'x-amz-server-side-encryption': 'aws:kms:dsse' }],
    ['CopyObject', { 'x-amz-server-side-encryption-aws-kms-key-id': 'k' }],
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

  it('leaves SSE-S3 and SSE-C of PutObject, CopyObject and multipart uploads to their handlers (they encrypt)', () => {
    for (const operation of ['PutObject', 'CopyObject', 'CreateMultipartUpload']) {
      expect(thrown(() => refuseUnsupportedHeaders(operation, { 'x-amz-server-side-encryption': 'AES256' }))).toBeUndefined();
      expect(thrown(() => refuseUnsupportedHeaders(operation, { 'x-amz-server-side-encryption-customer-algorithm': 'AES256' }))).toBeUndefined();
    }
    expect(thrown(() => refuseUnsupportedHeaders('CopyObject', { 'x-amz-copy-source-server-side-encryption-customer-key': 'a2V5' }))).toBeUndefined();
    expect(thrown(() => refuseUnsupportedHeaders('UploadPart', { 'x-amz-server-side-encryption-customer-key': 'a2V5' }))).toBeUndefined();
    expect(thrown(() => refuseUnsupportedHeaders('UploadPartCopy', { 'x-amz-copy-source-server-side-encryption-customer-key-md5': 'bWQ1' }))).toBeUndefined();
  });
});

describe(refuseOversizedPut.name, () => {
  it('refuses more than 5 GiB announced by Content-Length or x-amz-decoded-content-length', () => {
    expect(thrown(() => refuseOversizedPut({ 'content-length': String(MAX_PUT_OBJECT_BYTES + 1) }))).toMatchObject({
      code: 'EntityTooLarge',
      extra: { ProposedSize: String(MAX_PUT_OBJECT_BYTES + 1), MaxSizeAllowed: String(MAX_PUT_OBJECT_BYTES) },
    });
    expect(thrown(() => refuseOversizedPut({ 'content-length': '100', 'x-amz-decoded-content-length': String(6 * 1024 ** 3) }))).toMatchObject({ code: 'EntityTooLarge' });
  });

  it('lets exactly 5 GiB, absent and malformed lengths through (the handler judges those)', () => {
    expect(thrown(() => refuseOversizedPut({ 'content-length': String(MAX_PUT_OBJECT_BYTES) }))).toBeUndefined();
    expect(thrown(() => refuseOversizedPut({}))).toBeUndefined();
    expect(thrown(() => refuseOversizedPut({ 'content-length': 'lots' }))).toBeUndefined();
  });
});

describe(validateResponseOverrides.name, () => {
  it.each(['text/html\r\nSet-Cookie: a=b', 'a\nb', 'a\u0000b', 'caf\u20ac'])('refuses response-content-type %j as InvalidArgument', (value) => {
    expect(thrown(() => validateResponseOverrides([['response-content-type', value]]))).toMatchObject({ code: 'InvalidArgument', extra: { ArgumentName: 'response-content-type' } });
  });

  it('accepts ordinary values, tabs and Latin-1, and ignores other parameters', () => {
    expect(thrown(() => validateResponseOverrides([['response-content-disposition', 'attachment;\tfilename="caf\u00e9.txt"'], ['prefix', 'a\r\nb']]))).toBeUndefined();
  });
});
