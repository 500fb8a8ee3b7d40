import { crc32c } from '@aws-crypto/crc32c';
import { Crc64NvmeJs } from '@aws-sdk/checksums/crc';
import { createHash, randomBytes } from 'crypto';
import { S3Error } from './errors';
import {
  checksumAlgorithmFromHeaders,
  checksumHeaderName,
  checksumOf,
  compositeChecksum,
  fullObjectChecksum,
  createHasher,
  HashAlgorithm,
  isValidChecksumValue,
  parseChecksumAlgorithm,
  parseChecksumType,
  parseContentMd5,
  requestChecksum,
  verifyChecksum,
} from './checksums';

function thrown(fn: () => unknown): S3Error {
  try {
    fn();
  } catch (error) {
    if (error instanceof S3Error) return error;
    throw error;
  }
  throw new Error('expected an S3Error');
}

const hex = (alg: HashAlgorithm, data: string) =>
  Buffer.from(checksumOf(alg, data), 'base64').toString('hex');

describe(createHasher.name, () => {
  it.each<[HashAlgorithm, string]>([
    // the "check" values of the CRC catalogue (reveng) for "123456789"
    ['CRC32', 'cbf43926'],
    ['CRC32C', 'e3069283'],
    ['CRC64NVME', 'ae8b14860a799888'],
    ['SHA1', 'f7c3bc1d808e04732adf679965ccc34ca7ae3441'],
    ['SHA256', '15e2b0d3c33891ebb0f1ef609ec419420c20e320ce94c65fbc8c3312448eb225'],
    ['MD5', '25f9e794323b453885f5181f1b624d0b'],
  ])('computes the standard check value of %s', (alg, expected) => {
    expect(hex(alg, '123456789')).toBe(expected);
  });

  it('returns base64 as S3 does, including for an empty body', () => {
    expect(checksumOf('CRC32', '')).toBe('AAAAAA==');
    expect(checksumOf('CRC64NVME', '')).toBe('AAAAAAAAAAA=');
    expect(checksumOf('SHA256', '')).toBe('47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=');
    expect(checksumOf('CRC32', 'Hello world')).toBe('i9aeUg==');
  });

  it.each<HashAlgorithm>(['CRC32', 'CRC32C', 'CRC64NVME', 'SHA1', 'SHA256', 'MD5'])(
    '%s gives the same digest for any split of the input',
    (alg) => {
      const data = randomBytes(100_003);
      const whole = createHasher(alg);
      whole.update(data);
      const sut = createHasher(alg);
      for (let i = 0; i < data.length;) {
        const n = 1 + Math.floor(Math.random() * 5000);
        sut.update(data.subarray(i, i + n));
        i += n;
      }
      expect(sut.digest()).toBe(whole.digest());
      expect(sut.digestBuffer()).toEqual(Buffer.from(whole.digest(), 'base64'));
      expect(sut.digest()).toBe(whole.digest()); // digest is repeatable
      expect(() => sut.update(Buffer.from('x'))).toThrow();
    },
  );

  it('matches the CRC32C implementation of @aws-crypto on random data', () => {
    for (const size of [0, 1, 7, 8, 9, 15, 16, 17, 1000, 65_537]) {
      const data = randomBytes(size);
      const expected = Buffer.alloc(4);
      expected.writeUInt32BE(crc32c(data));
      expect(checksumOf('CRC32C', data)).toBe(expected.toString('base64'));
    }
  });

  it('matches the CRC64NVME implementation of AWS SDK v3 on random data', async () => {
    for (const size of [1, 7, 8, 9, 255, 4096, 65_537]) {
      const data = randomBytes(size);
      const sdk = new Crc64NvmeJs();
      sdk.update(data);
      expect(checksumOf('CRC64NVME', data)).toBe(Buffer.from(await sdk.digest()).toString('base64'));
    }
  });
});

describe(checksumHeaderName.name, () => {
  it('names the header S3 uses', () => {
    expect(checksumHeaderName('CRC64NVME')).toBe('x-amz-checksum-crc64nvme');
    expect(checksumHeaderName('SHA256')).toBe('x-amz-checksum-sha256');
  });
});

describe(isValidChecksumValue.name, () => {
  it('requires canonical base64 of the exact digest length', () => {
    expect(isValidChecksumValue('CRC32', 'i9aeUg==')).toBe(true);
    expect(isValidChecksumValue('CRC32', 'i9aeUg')).toBe(false);
    expect(isValidChecksumValue('CRC32', 'i9aeUh==')).toBe(false); // non-zero padding bits
    expect(isValidChecksumValue('CRC32C', 'AAAAAAAAAAA=')).toBe(false);
    expect(isValidChecksumValue('CRC64NVME', 'AAAAAAAAAAA=')).toBe(true);
    expect(isValidChecksumValue('SHA256', checksumOf('SHA256', 'x'))).toBe(true);
    expect(isValidChecksumValue('SHA1', checksumOf('SHA256', 'x'))).toBe(false);
    expect(isValidChecksumValue('MD5', '1B2M2Y8AsgTpgAmY7PhCfg==')).toBe(true);
    expect(isValidChecksumValue('MD5', '1B2M2Y8AsgTpgAmY7PhCfg==\n')).toBe(false);
  });
});

describe(parseChecksumAlgorithm.name, () => {
  it('accepts any case and rejects unknown algorithms with S3 wording', () => {
    expect(parseChecksumAlgorithm('crc32c')).toBe('CRC32C');
    expect(thrown(() => parseChecksumAlgorithm('MD5'))).toMatchObject({
      code: 'InvalidRequest',
      message: expect.stringContaining('Checksum algorithm provided is unsupported'),
    });
  });
});

describe(requestChecksum.name, () => {
  const crc = checksumOf('CRC32', 'x');

  it('finds a checksum header', () => {
    expect(requestChecksum({ 'x-amz-checksum-crc32': crc, 'x-amz-sdk-checksum-algorithm': 'CRC32' })).toEqual(
      {
        algorithm: 'CRC32',
        location: 'header',
        value: crc,
      },
    );
  });

  it('finds a trailer, as SDK v3 declares it for streaming uploads', () => {
    const sut = requestChecksum({
      'x-amz-trailer': 'x-amz-checksum-crc64nvme',
      'x-amz-sdk-checksum-algorithm': 'CRC64NVME',
      'x-amz-content-sha256': 'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
    });
    expect(sut).toEqual({ algorithm: 'CRC64NVME', location: 'trailer' });
  });

  it('ignores the algorithm, type and mode headers and requests without checksums', () => {
    expect(
      requestChecksum({
        'x-amz-checksum-algorithm': 'SHA1',
        'x-amz-checksum-type': 'COMPOSITE',
        'x-amz-checksum-mode': 'ENABLED',
      }),
    ).toBeUndefined();
    expect(requestChecksum({})).toBeUndefined();
  });

  it.each<[string, Record<string, string>, RegExp]>([
    [
      'an invalid value',
      { 'x-amz-checksum-crc32': 'nope' },
      /Value for x-amz-checksum-crc32 header is invalid/,
    ],
    [
      'a value of the wrong length',
      { 'x-amz-checksum-sha256': crc },
      /x-amz-checksum-sha256 header is invalid/,
    ],
    ['an unknown algorithm header', { 'x-amz-checksum-md5': crc }, /unsupported/],
    [
      'two checksums',
      { 'x-amz-checksum-crc32': crc, 'x-amz-checksum-crc32c': crc },
      /Multiple checksum Types/,
    ],
    [
      'a header and a trailer',
      { 'x-amz-checksum-crc32': crc, 'x-amz-trailer': 'x-amz-checksum-crc32c' },
      /Multiple/,
    ],
    [
      'an SDK algorithm without a checksum',
      { 'x-amz-sdk-checksum-algorithm': 'CRC32' },
      /no corresponding x-amz-checksum/,
    ],
    [
      'an SDK algorithm that disagrees',
      { 'x-amz-sdk-checksum-algorithm': 'SHA1', 'x-amz-checksum-crc32': crc },
      /x-amz-sdk-checksum-algorithm/,
    ],
    ['an unknown trailer algorithm', { 'x-amz-trailer': 'x-amz-checksum-xxhash64' }, /unsupported/],
  ])('rejects %s as InvalidRequest', (_case, headers, message) => {
    const error = thrown(() => requestChecksum(headers));
    expect(error.code).toBe('InvalidRequest');
    expect(error.message).toMatch(message);
  });
});

describe(checksumAlgorithmFromHeaders.name, () => {
  it('reads the declared checksum first, then the multipart setting', () => {
    expect(checksumAlgorithmFromHeaders({ 'x-amz-trailer': 'x-amz-checksum-sha1' })).toBe('SHA1');
    expect(checksumAlgorithmFromHeaders({ 'x-amz-checksum-algorithm': 'crc32c' })).toBe('CRC32C');
    expect(checksumAlgorithmFromHeaders({ 'content-type': 'a/b' })).toBeUndefined();
  });
});

describe(parseChecksumType.name, () => {
  it('defaults by algorithm and enforces the pairings S3 allows', () => {
    expect(parseChecksumType(undefined, undefined)).toBeUndefined();
    expect(parseChecksumType(undefined, 'CRC32')).toBe('COMPOSITE');
    expect(parseChecksumType(undefined, 'CRC64NVME')).toBe('FULL_OBJECT');
    expect(parseChecksumType('full_object', 'CRC32C')).toBe('FULL_OBJECT');
    expect(thrown(() => parseChecksumType('COMPOSITE', 'CRC64NVME')).code).toBe('InvalidRequest');
    expect(thrown(() => parseChecksumType('FULL_OBJECT', 'SHA256')).code).toBe('InvalidRequest');
    expect(thrown(() => parseChecksumType('PARTIAL', 'CRC32')).code).toBe('InvalidRequest');
    expect(thrown(() => parseChecksumType('COMPOSITE', undefined)).code).toBe('InvalidRequest');
  });
});

describe(verifyChecksum.name, () => {
  it('throws BadDigest naming the algorithm', () => {
    expect(() => verifyChecksum('CRC32', 'AAAAAA==', 'AAAAAA==')).not.toThrow();
    expect(thrown(() => verifyChecksum('CRC32C', 'AAAAAA==', 'AAAAAQ=='))).toMatchObject({
      code: 'BadDigest',
      httpStatus: 400,
      message: 'The CRC32C you specified did not match the calculated checksum.',
    });
  });
});

describe(parseContentMd5.name, () => {
  it('decodes 16 bytes of base64 and rejects anything else as InvalidDigest', () => {
    expect(parseContentMd5('1B2M2Y8AsgTpgAmY7PhCfg==').toString('hex')).toBe(
      'd41d8cd98f00b204e9800998ecf8427e',
    );
    for (const bad of ['', 'd41d8cd98f00b204e9800998ecf8427e', 'AAAA', '!!!!']) {
      expect(thrown(() => parseContentMd5(bad)).code).toBe('InvalidDigest');
    }
  });
});

describe(compositeChecksum.name, () => {
  it('hashes the concatenated raw part checksums and appends the part count', () => {
    const parts = ['part one', 'part two', 'part three'].map((p) => checksumOf('SHA256', p));
    const expected = createHash('sha256')
      .update(Buffer.concat(parts.map((p) => Buffer.from(p, 'base64'))))
      .digest('base64');
    expect(compositeChecksum('SHA256', parts)).toBe(`${expected}-3`);
    const crcs = ['a', 'b'].map((p) => checksumOf('CRC32', p));
    expect(compositeChecksum('CRC32', crcs)).toBe(
      `${checksumOf('CRC32', Buffer.concat(crcs.map((c) => Buffer.from(c, 'base64'))))}-2`,
    );
  });
});

describe(fullObjectChecksum.name, () => {
  it.each(['CRC32', 'CRC32C', 'CRC64NVME'] as const)(
    '%s of the parts equals the CRC of the whole object',
    (alg) => {
      const sizes = [5 * 1024 * 1024, 1, 0, 70_001, 3];
      const parts = sizes.map((n) => randomBytes(n));
      const sut = fullObjectChecksum(
        alg,
        parts.map((p) => ({ checksum: checksumOf(alg, p), size: p.length })),
      );
      expect(sut).toBe(checksumOf(alg, Buffer.concat(parts)));
      expect(fullObjectChecksum(alg, [{ checksum: checksumOf(alg, parts[3]), size: parts[3].length }])).toBe(
        checksumOf(alg, parts[3]),
      );
    },
  );

  it('is the empty CRC for no parts and rejects a checksum of the wrong width', () => {
    expect(fullObjectChecksum('CRC64NVME', [])).toBe('AAAAAAAAAAA=');
    expect(thrown(() => fullObjectChecksum('CRC64NVME', [{ checksum: 'AAAAAA==', size: 1 }])).code).toBe(
      'InvalidRequest',
    );
  });
});
