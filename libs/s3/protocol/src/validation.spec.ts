import { S3Error } from './errors';
import {
  bucketNameProblem,
  parseEncodingType,
  parseMaxKeys,
  parsePartNumber,
  userMetadataFromHeaders,
  validateBucketName,
  validateObjectKey,
  validateStorageClass,
  validateUserMetadata,
} from './validation';

function thrown(fn: () => unknown): S3Error {
  try {
    fn();
  } catch (error) {
    if (error instanceof S3Error) return error;
    throw error;
  }
  throw new Error('expected an S3Error');
}

describe(validateBucketName.name, () => {
  it.each([
    'abc',
    'my-bucket',
    'my.bucket.name',
    'a1b',
    '123',
    'a'.repeat(63),
    'xn-ok',
    'bucket-s3alias-not',
    '1.2.3.4.5',
    '999.1.1',
  ])('accepts %s', (name) => {
    expect(() => validateBucketName(name)).not.toThrow();
  });

  it.each([
    'ab',
    'a'.repeat(64),
    'My-Bucket',
    'my_bucket',
    'my bucket',
    '-bucket',
    'bucket-',
    '.bucket',
    'bucket.',
    'my..bucket',
    'my.-bucket',
    'my-.bucket',
    '192.168.5.4',
    'xn--bucket',
    'sthree-bucket',
    'amzn-s3-demo-bucket',
    'bucket-s3alias',
    'bucket--ol-s3',
    'bucket.mrap',
    'bucket--x-s3',
    'bucket--table-s3',
    'bücket',
  ])('rejects %s as InvalidBucketName', (name) => {
    const error = thrown(() => validateBucketName(name));
    expect(error).toMatchObject({ code: 'InvalidBucketName', httpStatus: 400, extra: { BucketName: name } });
    expect(bucketNameProblem(name)).toBeDefined();
  });
});

describe(validateObjectKey.name, () => {
  it('accepts up to 1024 bytes of UTF-8 and rejects more as KeyTooLongError', () => {
    expect(() => validateObjectKey('k'.repeat(1024))).not.toThrow();
    expect(() => validateObjectKey('€'.repeat(341) + 'a')).not.toThrow(); // 1024 bytes
    expect(thrown(() => validateObjectKey('€'.repeat(342)))).toMatchObject({
      code: 'KeyTooLongError',
      extra: { Size: '1026', MaxSizeAllowed: '1024' },
    });
    expect(thrown(() => validateObjectKey('k'.repeat(1025))).code).toBe('KeyTooLongError');
    expect(thrown(() => validateObjectKey('')).code).toBe('InvalidArgument');
  });
});

describe(userMetadataFromHeaders.name, () => {
  it('collects x-amz-meta-* without the prefix', () => {
    expect(
      userMetadataFromHeaders({
        'x-amz-meta-a': '1',
        'x-amz-meta-b-c': ['x', 'y'],
        'content-type': 't',
        'x-amz-acl': 'p',
        'x-amz-meta-u': undefined,
      }),
    ).toEqual({
      a: '1',
      'b-c': 'x,y',
    });
  });

  it('allows 2 KB of names and values and rejects one byte more as MetadataTooLarge', () => {
    expect(() => validateUserMetadata({ k: 'v'.repeat(2047) })).not.toThrow();
    expect(thrown(() => validateUserMetadata({ k: 'v'.repeat(2048) }))).toMatchObject({
      code: 'MetadataTooLarge',
      extra: { Size: '2049' },
    });
    expect(
      thrown(() =>
        userMetadataFromHeaders({ 'x-amz-meta-a': 'é'.repeat(1000), 'x-amz-meta-b': 'x'.repeat(47) }),
      ).code,
    ).toBe('MetadataTooLarge');
  });
});

describe(validateStorageClass.name, () => {
  it.each([
    'STANDARD',
    'REDUCED_REDUNDANCY',
    'STANDARD_IA',
    'ONEZONE_IA',
    'INTELLIGENT_TIERING',
    'GLACIER',
    'DEEP_ARCHIVE',
    'GLACIER_IR',
  ])('accepts %s', (value) => expect(() => validateStorageClass(value)).not.toThrow());

  it.each(['standard', 'COLD', ''])('rejects %j as InvalidStorageClass', (value) => {
    expect(thrown(() => validateStorageClass(value))).toMatchObject({
      code: 'InvalidStorageClass',
      extra: { StorageClassRequested: value },
    });
  });
});

describe(parseMaxKeys.name, () => {
  it.each<[string | undefined, number]>([
    [undefined, 1000],
    ['', 1000],
    ['0', 0],
    ['5', 5],
    ['1000', 1000],
    ['1001', 1000],
    ['2147483647', 1000],
  ])('reads %j as %d', (value, expected) => expect(parseMaxKeys(value)).toBe(expected));

  it.each(['-1', 'abc', '1.5', '2147483648', '1e3'])(
    'rejects %j as InvalidArgument naming the parameter',
    (value) => {
      expect(thrown(() => parseMaxKeys(value, 'max-uploads'))).toMatchObject({
        code: 'InvalidArgument',
        extra: { ArgumentName: 'max-uploads', ArgumentValue: value },
      });
    },
  );
});

describe(parsePartNumber.name, () => {
  it('accepts 1..10000', () => {
    expect(parsePartNumber('1')).toBe(1);
    expect(parsePartNumber('10000')).toBe(10000);
  });

  it.each([undefined, '', '0', '10001', '-1', '1.0', 'x', '00000000001'])(
    'rejects %j as InvalidArgument',
    (value) => {
      expect(thrown(() => parsePartNumber(value)).code).toBe('InvalidArgument');
    },
  );
});

describe(parseEncodingType.name, () => {
  it('accepts url in any case, nothing else', () => {
    expect(parseEncodingType(undefined)).toBeUndefined();
    expect(parseEncodingType('URL')).toBe('url');
    expect(thrown(() => parseEncodingType('base64')).code).toBe('InvalidArgument');
  });
});
