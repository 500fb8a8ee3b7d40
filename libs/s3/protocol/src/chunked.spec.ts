import { PutObjectCommand, UploadPartCommand } from '@aws-sdk/client-s3';
import { randomBytes } from 'crypto';
import { Readable, Writable } from 'stream';
import { pipeline } from 'stream/promises';
import { ChecksumAlgorithm, checksumHeaderName, checksumOf } from './checksums';
import { ChunkedDecoderOptions, ChunkSigning, createChunkedDecoder } from './chunked';
import { S3Error } from './errors';
import { deriveSigningKey, parseSigV4, SigV4Request, verifySigV4 } from './sigv4';
import { encodeSignedChunkedBody, encodeUnsignedChunkedBody } from './testing';
import { CaptureServer, TEST_CREDENTIALS } from './spec-support/sdk-capture';

const SIGNED = 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD';
const SIGNED_TRAILER = 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER';
const UNSIGNED_TRAILER = 'STREAMING-UNSIGNED-PAYLOAD-TRAILER';

const signing: ChunkSigning = {
  signingKey: deriveSigningKey(TEST_CREDENTIALS.secretAccessKey, '20240601', 'us-east-1', 's3'),
  seedSignature: 'c'.repeat(64),
  scope: '20240601/us-east-1/s3/aws4_request',
  amzDate: '20240601T120000Z',
};

/** Splits `body` into pieces: 'bytes' = one byte per write, 'random' = random sizes, or one write. */
function pieces(body: Buffer, how: 'whole' | 'bytes' | 'random'): Buffer[] {
  if (how === 'whole') return [body];
  const out: Buffer[] = [];
  for (let i = 0; i < body.length;) {
    const n = how === 'bytes' ? 1 : 1 + Math.floor(Math.random() * 200);
    out.push(body.subarray(i, i + n));
    i += n;
  }
  return out;
}

async function decode(body: Buffer | Buffer[], options: ChunkedDecoderOptions) {
  const sut = createChunkedDecoder(options);
  const out: Buffer[] = [];
  await pipeline(
    Readable.from(Array.isArray(body) ? body : [body]),
    sut,
    new Writable({
      write(chunk: Buffer, _enc, cb) {
        out.push(chunk);
        cb();
      },
    }),
  );
  return { data: Buffer.concat(out), trailers: sut.trailers, decodedLength: sut.decodedLength };
}

async function decodeError(body: Buffer | Buffer[], options: ChunkedDecoderOptions): Promise<S3Error> {
  try {
    await decode(body, options);
  } catch (error) {
    if (error instanceof S3Error) return error;
    throw error;
  }
  throw new Error('expected the decoder to fail');
}

describe(createChunkedDecoder.name, () => {
  describe('the worked example of the AWS documentation (sigv4-streaming.html)', () => {
    // PUT 66560 bytes of 'a' in 64 KiB chunks; the signatures below are the documented ones.
    const request: SigV4Request = {
      method: 'PUT',
      rawPath: '/examplebucket/chunkObject.txt',
      query: [],
      headers: {
        host: 's3.amazonaws.com',
        'x-amz-date': '20130524T000000Z',
        'x-amz-storage-class': 'REDUCED_REDUNDANCY',
        authorization:
          'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=content-encoding;content-length;host;x-amz-content-sha256;x-amz-date;x-amz-decoded-content-length;x-amz-storage-class,Signature=4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9',
        'x-amz-content-sha256': SIGNED,
        'content-encoding': 'aws-chunked',
        'x-amz-decoded-content-length': '66560',
        'content-length': '66824',
      },
    };
    const payload = Buffer.alloc(66560, 'a');
    const body = Buffer.concat([
      Buffer.from(
        '10000;chunk-signature=ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648\r\n',
      ),
      payload.subarray(0, 65536),
      Buffer.from(
        '\r\n400;chunk-signature=0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497\r\n',
      ),
      payload.subarray(65536),
      Buffer.from(
        '\r\n0;chunk-signature=b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9\r\n\r\n',
      ),
    ]);

    it('verifies the seed signature and every chunk', async () => {
      expect(body.length).toBe(66824);
      const seed = verifySigV4(
        parseSigV4(request)!,
        request,
        TEST_CREDENTIALS.secretAccessKey,
        new Date('2013-05-24T00:00:00Z'),
      );
      expect(seed.seedSignature).toBe('4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9');
      const sut = await decode(body, { mode: SIGNED, signing: seed, decodedContentLength: 66560 });
      expect(sut.data.equals(payload)).toBe(true);
    });

    it('agrees with the encoder used by the other tests', () => {
      const seed = verifySigV4(
        parseSigV4(request)!,
        request,
        TEST_CREDENTIALS.secretAccessKey,
        new Date('2013-05-24T00:00:00Z'),
      );
      expect(encodeSignedChunkedBody(payload, seed, { chunkSize: 65536 }).equals(body)).toBe(true);
    });
  });

  describe.each(['whole', 'bytes', 'random'] as const)('input written %s', (how) => {
    it.each([0, 1, 99, 100, 101, 1000])('decodes a signed body of %d bytes', async (size) => {
      const payload = randomBytes(size);
      const body = encodeSignedChunkedBody(payload, signing, { chunkSize: 100 });
      const sut = await decode(pieces(body, how), { mode: SIGNED, signing, decodedContentLength: size });
      expect(sut.data.equals(payload)).toBe(true);
      expect(sut.decodedLength).toBe(size);
      expect(sut.trailers).toEqual({});
    });

    it('decodes a signed body with a signed checksum trailer', async () => {
      const payload = randomBytes(777);
      const trailers = { 'x-amz-checksum-crc32c': checksumOf('CRC32C', payload) };
      const body = encodeSignedChunkedBody(payload, signing, { chunkSize: 256, trailers });
      const sut = await decode(pieces(body, how), {
        mode: SIGNED_TRAILER,
        signing,
        decodedContentLength: 777,
        expectedTrailers: ['x-amz-checksum-crc32c'],
      });
      expect(sut.data.equals(payload)).toBe(true);
      expect(sut.trailers).toEqual(trailers);
    });

    it.each([0, 5, 64 * 1024 + 3])('decodes an unsigned body with a trailer, %d bytes', async (size) => {
      const payload = randomBytes(size);
      const trailers = { 'x-amz-checksum-crc32': checksumOf('CRC32', payload) };
      const body = encodeUnsignedChunkedBody(payload, { chunkSize: 8192, trailers });
      const sut = await decode(pieces(body, how), {
        mode: UNSIGNED_TRAILER,
        decodedContentLength: size,
        expectedTrailers: ['x-amz-checksum-crc32'],
      });
      expect(sut.data.equals(payload)).toBe(true);
      expect(sut.trailers).toEqual(trailers);
    });
  });

  it('accepts a body whose final blank line is missing, and bare LF line ends in trailers', async () => {
    const payload = Buffer.from('hello');
    const body = encodeUnsignedChunkedBody(payload, {
      chunkSize: 4,
      trailers: { 'x-amz-checksum-crc32': checksumOf('CRC32', payload) },
    });
    expect(
      (await decode(body.subarray(0, body.length - 2), { mode: UNSIGNED_TRAILER })).data.toString(),
    ).toBe('hello');
    const lf = Buffer.from(`5\r\nhello\r\n0\nx-amz-checksum-crc32:${checksumOf('CRC32', payload)}\n\n`);
    expect((await decode(lf, { mode: UNSIGNED_TRAILER })).trailers['x-amz-checksum-crc32']).toBe(
      checksumOf('CRC32', payload),
    );
  });

  it('accepts upper-case hex sizes and chunk extensions in unsigned mode', async () => {
    const body = Buffer.from(`A;foo=bar\r\n0123456789\r\n0\r\n\r\n`);
    expect((await decode(body, { mode: UNSIGNED_TRAILER })).data.toString()).toBe('0123456789');
  });

  describe('rejects', () => {
    const payload = randomBytes(300);
    const signedBody = encodeSignedChunkedBody(payload, signing, { chunkSize: 100 });
    const trailerBody = encodeSignedChunkedBody(payload, signing, {
      chunkSize: 100,
      trailers: { 'x-amz-checksum-crc32': checksumOf('CRC32', payload) },
    });
    const unsignedBody = encodeUnsignedChunkedBody(payload, {
      chunkSize: 100,
      trailers: { 'x-amz-checksum-crc32': checksumOf('CRC32', payload) },
    });
    const flip = (body: Buffer, at: number) => {
      const copy = Buffer.from(body);
      copy[at] ^= 1;
      return copy;
    };
    const replace = (body: Buffer, from: string, to: string) =>
      Buffer.from(body.toString('latin1').replace(from, to), 'latin1');
    const CHUNK = '64;chunk-signature='.length + 64 + 2 + 100 + 2; // one framed 100-byte chunk
    const firstSignature = signedBody.toString('latin1').match(/chunk-signature=([0-9a-f]{64})/)![1];

    it.each<[string, () => Buffer, ChunkedDecoderOptions['mode'], string, RegExp]>([
      [
        'a changed data byte',
        () => flip(signedBody, 90),
        SIGNED,
        'SignatureDoesNotMatch',
        /signature we calculated/,
      ],
      [
        'a changed byte of the last chunk',
        () => flip(signedBody, signedBody.length - 100),
        SIGNED,
        'SignatureDoesNotMatch',
        /signature we calculated/,
      ],
      [
        'a changed chunk signature',
        () => replace(signedBody, firstSignature, '0'.repeat(64)),
        SIGNED,
        'SignatureDoesNotMatch',
        /signature we calculated/,
      ],
      [
        'a dropped middle chunk',
        () => Buffer.concat([signedBody.subarray(0, CHUNK), signedBody.subarray(2 * CHUNK)]),
        SIGNED,
        'SignatureDoesNotMatch',
        /signature we calculated/,
      ],
      [
        'a changed trailer value',
        () => replace(trailerBody, 'x-amz-checksum-crc32:', 'x-amz-checksum-crc32:A'),
        SIGNED_TRAILER,
        'SignatureDoesNotMatch',
        /signature we calculated/,
      ],
      [
        'a changed trailer signature',
        () => replace(trailerBody, 'x-amz-trailer-signature:', 'x-amz-trailer-signature:0'),
        SIGNED_TRAILER,
        'SignatureDoesNotMatch',
        /signature we calculated/,
      ],
      [
        'a missing trailer signature',
        () =>
          Buffer.from(trailerBody.toString('latin1').replace(/x-amz-trailer-signature:.*\r\n/, ''), 'latin1'),
        SIGNED_TRAILER,
        'InvalidRequest',
        /Missing x-amz-trailer-signature/,
      ],
      [
        'a trailer in a signed body without trailers',
        () => trailerBody,
        SIGNED,
        'InvalidRequest',
        /Unexpected trailer/,
      ],
      [
        'a missing chunk signature',
        () => replace(signedBody, `;chunk-signature=${firstSignature}`, ''),
        SIGNED,
        'InvalidRequest',
        /chunk-signature/,
      ],
      [
        'a bad chunk size',
        () => Buffer.from('zz\r\n'),
        UNSIGNED_TRAILER,
        'InvalidRequest',
        /Invalid chunk size/,
      ],
      [
        'an empty chunk size',
        () => Buffer.from(';x\r\n'),
        UNSIGNED_TRAILER,
        'InvalidRequest',
        /Invalid chunk size/,
      ],
      [
        'a chunk over 16 MiB',
        () => Buffer.from('1000001\r\n'),
        UNSIGNED_TRAILER,
        'InvalidRequest',
        /exceeds the limit/,
      ],
      [
        'data not followed by CRLF',
        () => Buffer.from('2\r\nabX\r\n0\r\n\r\n'),
        UNSIGNED_TRAILER,
        'InvalidRequest',
        /CRLF/,
      ],
      [
        'an endless header line',
        () => Buffer.alloc(10_000, '1'),
        UNSIGNED_TRAILER,
        'InvalidRequest',
        /too long/,
      ],
      [
        'bytes after the end',
        () => Buffer.concat([unsignedBody, Buffer.from('x')]),
        UNSIGNED_TRAILER,
        'InvalidRequest',
        /after the end/,
      ],
      [
        'a malformed trailer',
        () => Buffer.from('0\r\nno-colon\r\n\r\n'),
        UNSIGNED_TRAILER,
        'InvalidRequest',
        /Malformed trailer/,
      ],
      [
        'a repeated trailer',
        () => Buffer.from('0\r\na:1\r\na:2\r\n\r\n'),
        UNSIGNED_TRAILER,
        'InvalidRequest',
        /Repeated trailer/,
      ],
      [
        'a trailer signature in an unsigned body',
        () => Buffer.from(`0\r\nx-amz-trailer-signature:${'0'.repeat(64)}\r\n\r\n`),
        UNSIGNED_TRAILER,
        'InvalidRequest',
        /Unexpected x-amz-trailer-signature/,
      ],
      [
        'a body cut in a chunk',
        () => signedBody.subarray(0, 150),
        SIGNED,
        'IncompleteBody',
        /ended before the final chunk/,
      ],
      [
        'a body cut before the final chunk',
        () => signedBody.subarray(0, signedBody.indexOf('0;chunk-signature')),
        SIGNED,
        'IncompleteBody',
        /ended before the final chunk/,
      ],
      [
        'a body cut in a trailer line',
        () => unsignedBody.subarray(0, unsignedBody.length - 6),
        UNSIGNED_TRAILER,
        'IncompleteBody',
        /ended before the final chunk/,
      ],
      [
        'an empty body',
        () => Buffer.alloc(0),
        UNSIGNED_TRAILER,
        'IncompleteBody',
        /ended before the final chunk/,
      ],
    ])('%s', async (_case, body, mode, code, message) => {
      const error = await decodeError(pieces(body(), 'random'), { mode, signing });
      expect(error.code).toBe(code);
      expect(error.message).toMatch(message);
    });

    it('a body longer or shorter than x-amz-decoded-content-length', async () => {
      expect((await decodeError(signedBody, { mode: SIGNED, signing, decodedContentLength: 299 })).code).toBe(
        'IncompleteBody',
      );
      expect(
        (await decodeError(signedBody, { mode: SIGNED, signing, decodedContentLength: 301 })).message,
      ).toMatch(/300 bytes.*says 301/);
    });

    it('a trailer not declared in x-amz-trailer, or a declared one missing', async () => {
      expect(
        (
          await decodeError(unsignedBody, {
            mode: UNSIGNED_TRAILER,
            expectedTrailers: ['x-amz-checksum-sha1'],
          })
        ).message,
      ).toMatch(/not declared/);
      const noTrailer = encodeUnsignedChunkedBody(payload, { chunkSize: 100 });
      expect(
        (await decodeError(noTrailer, { mode: UNSIGNED_TRAILER, expectedTrailers: ['x-amz-checksum-crc32'] }))
          .code,
      ).toBe('IncompleteBody');
    });

    it('a custom chunk size limit', async () => {
      expect((await decodeError(signedBody, { mode: SIGNED, signing, maxChunkSize: 99 })).message).toMatch(
        /exceeds the limit of 99/,
      );
    });

    it('a signed mode without signing material, at construction', () => {
      expect(() => createChunkedDecoder({ mode: SIGNED })).toThrow(/signing key/);
    });
  });

  it('emits no byte of a chunk whose signature fails, and streams verified chunks at once', async () => {
    const payload = randomBytes(300);
    const body = encodeSignedChunkedBody(payload, signing, { chunkSize: 100 });
    const firstChunkEnd = body.indexOf('\r\n', body.indexOf('\r\n') + 2 + 100) + 2;
    const sut = createChunkedDecoder({ mode: SIGNED, signing });
    const out: Buffer[] = [];
    sut.on('data', (d: Buffer) => out.push(d));
    const failed = new Promise<Error>((resolve) => sut.on('error', resolve));

    sut.write(body.subarray(0, firstChunkEnd - 1));
    await new Promise((r) => setImmediate(r));
    expect(Buffer.concat(out).length).toBe(0); // the first chunk is complete but its CRLF is not
    sut.write(body.subarray(firstChunkEnd - 1, firstChunkEnd));
    await new Promise((r) => setImmediate(r));
    expect(Buffer.concat(out).equals(payload.subarray(0, 100))).toBe(true);

    const tampered = Buffer.from(body.subarray(firstChunkEnd));
    tampered[120] ^= 0xff; // inside the second chunk's data
    sut.end(tampered);
    expect(((await failed) as S3Error).code).toBe('SignatureDoesNotMatch');
    expect(Buffer.concat(out).length).toBe(100);
  });

  describe('bodies produced by AWS SDK v3 (captured over loopback)', () => {
    const server = new CaptureServer();
    beforeAll(() => server.start());
    afterAll(() => server.stop());

    it.each<ChecksumAlgorithm | undefined>([undefined, 'CRC32C', 'CRC64NVME', 'SHA1', 'SHA256'])(
      'decodes a streamed PutObject and UploadPart (checksum %s)',
      async (algorithm) => {
        server.requests.length = 0;
        const client = server.client();
        const parts = [randomBytes(70_000), randomBytes(10), randomBytes(65_536), randomBytes(1)];
        const payload = Buffer.concat(parts);
        await client.send(
          new PutObjectCommand({
            Bucket: 'b',
            Key: 'streamed key',
            Body: Readable.from(parts),
            ContentLength: payload.length,
            ChecksumAlgorithm: algorithm,
          }),
        );
        await client.send(
          new UploadPartCommand({
            Bucket: 'b',
            Key: 'k',
            UploadId: 'u',
            PartNumber: 1,
            Body: Readable.from(parts),
            ContentLength: payload.length,
            ChecksumAlgorithm: algorithm,
          }),
        );
        client.destroy();

        const expectedAlgorithm = algorithm ?? 'CRC32'; // the SDK default since 2025
        const trailerName = checksumHeaderName(expectedAlgorithm);
        for (const req of server.requests) {
          expect(req.headers).toMatchObject({
            'content-encoding': 'aws-chunked',
            'x-amz-content-sha256': UNSIGNED_TRAILER,
            'x-amz-trailer': trailerName,
            'x-amz-decoded-content-length': String(payload.length),
          });
          const parsed = parseSigV4(req)!;
          expect(parsed.payloadHash).toBe(UNSIGNED_TRAILER);
          expect(() => verifySigV4(parsed, req, TEST_CREDENTIALS.secretAccessKey, new Date())).not.toThrow();

          const sut = await decode(pieces(req.body, 'random'), {
            mode: UNSIGNED_TRAILER,
            decodedContentLength: Number(req.headers['x-amz-decoded-content-length']),
            expectedTrailers: [String(req.headers['x-amz-trailer'])],
          });
          expect(sut.data.equals(payload)).toBe(true);
          expect(sut.trailers).toEqual({ [trailerName]: checksumOf(expectedAlgorithm, payload) });
          // The SDK frames one chunk per stream read: our understanding of the format, byte for byte.
          const framed = Buffer.concat([
            ...parts.flatMap((p) => [Buffer.from(`${p.length.toString(16)}\r\n`), p, Buffer.from('\r\n')]),
            Buffer.from(`0\r\n${trailerName}:${checksumOf(expectedAlgorithm, payload)}\r\n\r\n`),
          ]);
          expect(req.body.equals(framed)).toBe(true);
        }
      },
    );
  });
});
