import { Sha256 } from '@aws-crypto/sha256-js';
import {
  CopyObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  PutObjectTaggingCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { buildQueryString, escapeUriPath } from '@smithy/core/protocols';
import { SignatureV4 } from '@smithy/signature-v4';
import { S3Error } from './errors';
import { repeatedHeaders } from './headers';
import {
  cachedSigningKey,
  canonicalQueryString,
  deriveSigningKey,
  formatAmzDate,
  parseAmzDate,
  parseQueryString,
  parseSigV4,
  sha256Hex,
  SigV4Request,
  uriEncode,
  verifySigV4,
} from './sigv4';
import { CaptureServer, TEST_CREDENTIALS } from './spec-support/sdk-capture';

const SECRET = TEST_CREDENTIALS.secretAccessKey;

function thrown(fn: () => unknown): S3Error {
  try {
    fn();
  } catch (error) {
    if (error instanceof S3Error) return error;
    throw error;
  }
  throw new Error('expected an S3Error');
}

function verify(req: SigV4Request, now = new Date(), secret = SECRET) {
  const parsed = parseSigV4(req);
  if (!parsed) throw new Error('request is anonymous');
  return verifySigV4(parsed, req, secret, now);
}

/** Signs with the AWS signer that SDK v3 uses, and returns the request as it goes on the wire. */
async function smithySigned(input: {
  method?: string;
  host?: string;
  key?: string;
  path?: string;
  query?: Record<string, string | string[]>;
  headers?: Record<string, string>;
  body?: string;
  signingDate?: Date;
}): Promise<SigV4Request> {
  const signer = new SignatureV4({
    service: 's3',
    region: 'us-east-1',
    credentials: TEST_CREDENTIALS,
    sha256: Sha256,
    uriEscapePath: false,
    applyChecksum: true,
  });
  const host = input.host ?? '127.0.0.1:9000';
  const path = input.path ?? `/bucket/${escapeUriPath(input.key ?? 'key')}`;
  const signed = await signer.sign(
    {
      method: input.method ?? 'GET',
      protocol: 'http:',
      hostname: host.split(':')[0],
      path,
      query: input.query ?? {},
      headers: { host, ...input.headers },
      body: input.body,
    },
    { signingDate: input.signingDate ?? new Date() },
  );
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(signed.headers)) headers[name.toLowerCase()] = value;
  return {
    method: signed.method,
    rawPath: signed.path,
    query: parseQueryString(buildQueryString(signed.query ?? {})),
    headers,
  };
}

describe(parseSigV4.name, () => {
  it('returns undefined for an anonymous request', () => {
    expect(
      parseSigV4({ method: 'GET', rawPath: '/b/k', query: [['prefix', 'a']], headers: { host: 'h' } }),
    ).toBeUndefined();
  });

  it('reads every field of an SDK-signed header request', async () => {
    const date = new Date('2024-02-03T04:05:06Z');
    const sut = parseSigV4(await smithySigned({ signingDate: date, method: 'PUT', body: 'hello' }))!;
    expect(sut).toMatchObject({
      kind: 'header',
      accessKeyId: TEST_CREDENTIALS.accessKeyId,
      date: '20240203',
      region: 'us-east-1',
      service: 's3',
      amzDate: '20240203T040506Z',
      requestTime: date,
      payloadHash: '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824',
    });
    expect(sut.signedHeaders).toEqual(expect.arrayContaining(['host', 'x-amz-content-sha256', 'x-amz-date']));
    expect(sut.signature).toMatch(/^[0-9a-f]{64}$/);
    expect(sut.expiresSeconds).toBeUndefined();
  });

  it('reads a presigned request', async () => {
    const server = new CaptureServer();
    await server.start();
    try {
      const url = await getSignedUrl(server.client(), new GetObjectCommand({ Bucket: 'b', Key: 'k' }), {
        expiresIn: 3600,
      });
      const u = new URL(url);
      const sut = parseSigV4({
        method: 'GET',
        rawPath: u.pathname,
        query: parseQueryString(u.search.slice(1)),
        headers: { host: u.host },
      })!;
      expect(sut).toMatchObject({
        kind: 'query',
        expiresSeconds: 3600,
        payloadHash: 'UNSIGNED-PAYLOAD',
        signedHeaders: ['host'],
      });
    } finally {
      await server.stop();
    }
  });

  const base = {
    method: 'GET',
    rawPath: '/b/k',
    query: [] as [string, string][],
    headers: { host: 'h', 'x-amz-date': '20240203T040506Z', 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
  };
  const cred = 'AKID/20240203/us-east-1/s3/aws4_request';
  const sig = 'a'.repeat(64);
  const withAuth = (authorization: string, headers: Record<string, string> = {}) => ({
    ...base,
    headers: { ...base.headers, authorization, ...headers },
  });

  it('rejects Signature Version 2 in a header and in the query as unsupported', () => {
    expect(thrown(() => parseSigV4(withAuth('AWS AKID:c2lnbmF0dXJl')))).toMatchObject({
      code: 'InvalidRequest',
      message: expect.stringContaining('Please use AWS4-HMAC-SHA256'),
    });
    const v2Query: [string, string][] = [
      ['AWSAccessKeyId', 'AKID'],
      ['Expires', '1700000000'],
      ['Signature', 'abc'],
    ];
    expect(thrown(() => parseSigV4({ ...base, query: v2Query })).code).toBe('InvalidRequest');
  });

  it('rejects SigV4a as unsupported and an unknown scheme as an invalid argument', () => {
    expect(thrown(() => parseSigV4(withAuth(`AWS4-ECDSA-P256-SHA256 Credential=${cred}`))).code).toBe(
      'InvalidRequest',
    );
    expect(thrown(() => parseSigV4(withAuth('Bearer abc')))).toMatchObject({
      code: 'InvalidArgument',
      message: 'Unsupported Authorization Type',
      extra: { ArgumentName: 'Authorization', ArgumentValue: 'Bearer abc' },
    });
  });

  it('rejects a request that carries both an Authorization header and query authentication', () => {
    const req = {
      ...withAuth(`AWS4-HMAC-SHA256 Credential=${cred}, SignedHeaders=host, Signature=${sig}`),
      query: [['X-Amz-Signature', sig]] as [string, string][],
    };
    expect(thrown(() => parseSigV4(req)).code).toBe('InvalidArgument');
  });

  it('accepts components in any order and without spaces', () => {
    const sut = parseSigV4(
      withAuth(`AWS4-HMAC-SHA256 Signature=${sig},SignedHeaders=host;x-amz-date,Credential=${cred}`),
    )!;
    expect(sut).toMatchObject({ accessKeyId: 'AKID', signedHeaders: ['host', 'x-amz-date'], signature: sig });
  });

  it.each([
    ['no components', 'AWS4-HMAC-SHA256', /requires three components/],
    ['a missing Signature', `AWS4-HMAC-SHA256 Credential=${cred}, SignedHeaders=host`, /three components/],
    [
      'a component without =',
      `AWS4-HMAC-SHA256 Credential=${cred}, SignedHeaders=host, Signature`,
      /malformed/,
    ],
    [
      'a repeated component',
      `AWS4-HMAC-SHA256 Credential=${cred}, Credential=${cred}, SignedHeaders=host, Signature=${sig}`,
      /malformed/,
    ],
    [
      'a short credential',
      `AWS4-HMAC-SHA256 Credential=AKID/20240203/us-east-1/s3, SignedHeaders=host, Signature=${sig}`,
      /Credential is mal-formed/,
    ],
    [
      'an empty key id',
      `AWS4-HMAC-SHA256 Credential=/20240203/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=${sig}`,
      /Credential is mal-formed/,
    ],
    [
      'a bad credential date',
      `AWS4-HMAC-SHA256 Credential=AKID/2024023/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=${sig}`,
      /Credential is mal-formed/,
    ],
    [
      'another service',
      `AWS4-HMAC-SHA256 Credential=AKID/20240203/us-east-1/ec2/aws4_request, SignedHeaders=host, Signature=${sig}`,
      /incorrect service "ec2"/,
    ],
    [
      'another terminal',
      `AWS4-HMAC-SHA256 Credential=AKID/20240203/us-east-1/s3/aws5_request, SignedHeaders=host, Signature=${sig}`,
      /incorrect terminal/,
    ],
    [
      'upper-case signed headers',
      `AWS4-HMAC-SHA256 Credential=${cred}, SignedHeaders=Host, Signature=${sig}`,
      /SignedHeaders/,
    ],
    [
      'an empty signed header',
      `AWS4-HMAC-SHA256 Credential=${cred}, SignedHeaders=host;;x-amz-date, Signature=${sig}`,
      /SignedHeaders/,
    ],
    [
      'a credential date other than x-amz-date',
      `AWS4-HMAC-SHA256 Credential=AKID/20240204/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=${sig}`,
      /Date is not the same as X-Amz-Date/,
    ],
  ])(
    'rejects an Authorization header with %s as AuthorizationHeaderMalformed',
    (_case, authorization, message) => {
      const error = thrown(() => parseSigV4(withAuth(authorization)));
      expect(error.code).toBe('AuthorizationHeaderMalformed');
      expect(error.httpStatus).toBe(400);
      expect(error.message).toMatch(message);
    },
  );

  it('takes the time from Date when x-amz-date is absent, and requires one of them', () => {
    const auth = `AWS4-HMAC-SHA256 Credential=AKID/19941106/us-east-1/s3/aws4_request, SignedHeaders=date;host, Signature=${sig}`;
    const req = {
      ...base,
      headers: {
        host: 'h',
        'x-amz-content-sha256': 'UNSIGNED-PAYLOAD',
        date: 'Sun, 06 Nov 1994 08:49:37 GMT',
        authorization: auth,
      },
    };
    expect(parseSigV4(req)).toMatchObject({
      amzDate: '19941106T084937Z',
      requestTime: new Date('1994-11-06T08:49:37Z'),
    });
    const { date: _date, ...noDate } = req.headers;
    expect(thrown(() => parseSigV4({ ...req, headers: noDate }))).toMatchObject({
      code: 'AccessDenied',
      httpStatus: 403,
    });
    expect(thrown(() => parseSigV4(withAuth(auth, { 'x-amz-date': '2024-02-03T04:05:06Z' }))).code).toBe(
      'AccessDenied',
    );
  });

  it('requires a valid x-amz-content-sha256 with header authentication', () => {
    const auth = `AWS4-HMAC-SHA256 Credential=${cred}, SignedHeaders=host, Signature=${sig}`;
    const { 'x-amz-content-sha256': _hash, ...noHash } = withAuth(auth).headers;
    expect(thrown(() => parseSigV4({ ...base, headers: noHash }))).toMatchObject({
      code: 'InvalidRequest',
      message: 'Missing required header for this request: x-amz-content-sha256',
    });
    expect(thrown(() => parseSigV4(withAuth(auth, { 'x-amz-content-sha256': 'abc' }))).code).toBe(
      'InvalidArgument',
    );
    expect(
      thrown(() =>
        parseSigV4(withAuth(auth, { 'x-amz-content-sha256': 'STREAMING-AWS4-ECDSA-P256-SHA256-PAYLOAD' })),
      ).code,
    ).toBe('NotImplemented');
    for (const ok of [
      'STREAMING-AWS4-HMAC-SHA256-PAYLOAD',
      'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER',
      'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
      'UNSIGNED-PAYLOAD',
      'f'.repeat(64),
    ]) {
      expect(parseSigV4(withAuth(auth, { 'x-amz-content-sha256': ok }))!.payloadHash).toBe(ok);
    }
  });

  describe('presigned parameters', () => {
    const good: [string, string][] = [
      ['X-Amz-Algorithm', 'AWS4-HMAC-SHA256'],
      ['X-Amz-Credential', cred],
      ['X-Amz-Date', '20240203T040506Z'],
      ['X-Amz-Expires', '300'],
      ['X-Amz-SignedHeaders', 'host'],
      ['X-Amz-Signature', sig],
    ];
    const withParam = (name: string, value: string | undefined): SigV4Request => ({
      method: 'GET',
      rawPath: '/b/k',
      headers: { host: 'h' },
      query:
        value === undefined
          ? good.filter(([n]) => n !== name)
          : good.map(([n, v]) => [n, n === name ? value : v]),
    });

    it('defaults the payload hash to UNSIGNED-PAYLOAD and reads a security token', () => {
      const req = withParam('X-Amz-Expires', '300');
      req.query.push(['X-Amz-Security-Token', 'tok']);
      expect(parseSigV4(req)).toMatchObject({
        kind: 'query',
        payloadHash: 'UNSIGNED-PAYLOAD',
        securityToken: 'tok',
        expiresSeconds: 300,
      });
    });

    it.each([
      ['X-Amz-Algorithm', undefined, /requires the X-Amz-Algorithm/],
      ['X-Amz-Signature', '', /requires the X-Amz-Algorithm/],
      ['X-Amz-Algorithm', 'AWS4-HMAC-SHA1', /only supports "AWS4-HMAC-SHA256"/],
      [
        'X-Amz-Credential',
        'AKID/20240203/us-east-1/s3',
        /X-Amz-Credential parameter; the Credential is mal-formed/,
      ],
      ['X-Amz-Credential', 'AKID/20240203/us-east-1/sqs/aws4_request', /incorrect service "sqs"/],
      ['X-Amz-Date', '20240203T040506', /ISO8601 Long Format/],
      ['X-Amz-Date', '20240230T040506Z', /ISO8601 Long Format/],
      ['X-Amz-Date', '20240204T040506Z', /Date is not the same as X-Amz-Date/],
      ['X-Amz-Expires', 'abc', /should be a number/],
      ['X-Amz-Expires', '-1', /must be non-negative/],
      ['X-Amz-Expires', '604801', /maximum expires is 604800 seconds/],
      ['X-Amz-SignedHeaders', 'Host', /X-Amz-SignedHeaders/],
    ])('rejects %s=%s as AuthorizationQueryParametersError', (name, value, message) => {
      const error = thrown(() => parseSigV4(withParam(name, value)));
      expect(error.code).toBe('AuthorizationQueryParametersError');
      expect(error.message).toMatch(message);
    });

    it('accepts an expiry of 0 (verifySigV4 answers it as expired)', () => {
      expect(parseSigV4(withParam('X-Amz-Expires', '0'))!.expiresSeconds).toBe(0);
    });

    it('accepts the longest expiry, one week', () => {
      expect(parseSigV4(withParam('X-Amz-Expires', '604800'))!.expiresSeconds).toBe(604800);
    });

    it('rejects a repeated authentication parameter', () => {
      const req = withParam('X-Amz-Expires', '300');
      req.query.push(['X-Amz-Signature', 'b'.repeat(64)]);
      expect(thrown(() => parseSigV4(req)).message).toMatch(/Duplicate X-Amz-Signature/);
    });
  });
});

describe(verifySigV4.name, () => {
  // The worked examples of the S3 SigV4 documentation (sig-v4-header-based-auth.html and
  // sigv4-query-string-auth.html): independent vectors, not produced by any code under test.
  describe('AWS documentation examples', () => {
    const now = new Date('2013-05-24T00:00:00Z');
    const auth = (signedHeaders: string, signature: string) =>
      `AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=${signedHeaders},Signature=${signature}`;
    const common = { host: 'examplebucket.s3.amazonaws.com', 'x-amz-date': '20130524T000000Z' };

    it('GET Object with a range', () => {
      const req: SigV4Request = {
        method: 'GET',
        rawPath: '/test.txt',
        query: [],
        headers: {
          ...common,
          range: 'bytes=0-9',
          'x-amz-content-sha256': 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
          authorization: auth(
            'host;range;x-amz-content-sha256;x-amz-date',
            'f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
          ),
        },
      };
      const sut = verify(req, now);
      expect(sut.seedSignature).toBe('f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41');
      expect(sut.scope).toBe('20130524/us-east-1/s3/aws4_request');
    });

    it('PUT Object with Date and a storage class', () => {
      const req: SigV4Request = {
        method: 'PUT',
        rawPath: '/test%24file.text',
        query: [],
        headers: {
          ...common,
          date: 'Fri, 24 May 2013 00:00:00 GMT',
          'x-amz-storage-class': 'REDUCED_REDUNDANCY',
          'x-amz-content-sha256': sha256Hex('Welcome to Amazon S3.'),
          authorization: auth(
            'date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class',
            '98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd',
          ),
        },
      };
      expect(() => verify(req, now)).not.toThrow();
    });

    it('GET Bucket Lifecycle (a subresource with an empty value)', () => {
      const req: SigV4Request = {
        method: 'GET',
        rawPath: '/',
        query: parseQueryString('lifecycle'),
        headers: {
          ...common,
          'x-amz-content-sha256': 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
          authorization: auth(
            'host;x-amz-content-sha256;x-amz-date',
            'fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543',
          ),
        },
      };
      expect(() => verify(req, now)).not.toThrow();
    });

    it('GET Bucket (list objects) with parameters out of order', () => {
      const req: SigV4Request = {
        method: 'GET',
        rawPath: '/',
        query: parseQueryString('max-keys=2&prefix=J'),
        headers: {
          ...common,
          'x-amz-content-sha256': 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
          authorization: auth(
            'host;x-amz-content-sha256;x-amz-date',
            '34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7',
          ),
        },
      };
      expect(() => verify(req, now)).not.toThrow();
    });

    it('a presigned GET valid for a day', () => {
      const req: SigV4Request = {
        method: 'GET',
        rawPath: '/test.txt',
        query: parseQueryString(
          'X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404',
        ),
        headers: { host: 'examplebucket.s3.amazonaws.com' },
      };
      expect(() => verify(req, new Date('2013-05-24T23:59:59Z'))).not.toThrow();
      expect(thrown(() => verify(req, new Date('2013-05-25T00:00:01Z')))).toMatchObject({
        code: 'AccessDenied',
        message: 'Request has expired',
        extra: {
          'X-Amz-Expires': '86400',
          Expires: '2013-05-25T00:00:00.000Z',
          ServerTime: '2013-05-25T00:00:01.000Z',
        },
      });
    });
  });

  describe('requests signed by the SDK v3 signer', () => {
    it.each([
      'plain.txt',
      'with space/and more spaces.txt',
      'unicode/日本語/ключ/ü.bin',
      'plus+sign+key',
      'percent%20literal%',
      'tilde~and_under-score.dot',
      'equals=sign&ampersand?question#hash',
      "quote's (parens) !bang *star",
      'a//double//slash/./dot/../dotdot',
      'emoji/🦄.png',
    ])('verifies a PUT of key %j', async (key) => {
      const req = await smithySigned({
        method: 'PUT',
        key,
        body: 'body of ' + key,
        headers: { 'x-amz-meta-owner': ' Anna   Maria ' },
      });
      expect(verify(req).seedSignature).toBe(parseSigV4(req)!.signature);
    });

    it('verifies query strings with empty values, repeated names and characters needing encoding', async () => {
      const req = await smithySigned({
        query: {
          'list-type': '2',
          prefix: 'a b+c/ü',
          delimiter: '/',
          'start-after': '',
          versions: '',
          'x-repeated': ['z', 'a', 'm'],
          'weird name*': "v'!()",
        },
      });
      expect(req.query.filter(([n]) => n === 'x-repeated')).toHaveLength(3);
      expect(() => verify(req)).not.toThrow();
    });

    it('verifies a virtual-host style request whose host carries the bucket and a port', async () => {
      const req = await smithySigned({
        host: 'my-bucket.s3.example.com:8443',
        path: '/photos/2024/cat%20pic.jpg',
      });
      expect(() => verify(req)).not.toThrow();
    });

    it('joins repeated header values with a comma and collapses inner whitespace', async () => {
      const signed = await smithySigned({ headers: { 'x-amz-meta-list': 'a,b' } });
      expect(() =>
        verify({ ...signed, headers: { ...signed.headers, 'x-amz-meta-list': ['a', 'b'] } }),
      ).not.toThrow();
      const spaced = await smithySigned({ headers: { 'x-amz-meta-text': 'one two three' } });
      expect(() =>
        verify({ ...spaced, headers: { ...spaced.headers, 'x-amz-meta-text': '  one \t two   three ' } }),
      ).not.toThrow();
    });

    it('verifies non-ASCII metadata sent as UTF-8 bytes, which Node hands over decoded as Latin-1', async () => {
      const signed = await smithySigned({ method: 'PUT', body: 'bar', headers: { 'x-amz-meta-meta1': 'Hello World\u00e9 日本' } });
      const asNodeReadsIt = Buffer.from(signed.headers['x-amz-meta-meta1'] as string, 'utf8').toString('latin1');
      expect(() => verify({ ...signed, headers: { ...signed.headers, 'x-amz-meta-meta1': asNodeReadsIt } })).not.toThrow();
      // a Latin-1 byte that is no UTF-8 is kept as the character it stands for
      const latin = await smithySigned({ headers: { 'x-amz-meta-l': 'caf\u00e9' } });
      expect(() => verify(latin)).not.toThrow();
    });

    describe('tampering with any signed part fails', () => {
      let original: SigV4Request;
      beforeAll(async () => {
        original = await smithySigned({
          method: 'PUT',
          path: '/bucket/dir/key.txt',
          query: { tagging: '', 'x-id': 'PutObjectTagging', versionId: 'v1' },
          headers: { 'x-amz-meta-a': '1', 'content-type': 'text/plain' },
          body: '<Tagging/>',
        });
      });
      const tamper = (change: (r: SigV4Request) => void) => {
        const req: SigV4Request = structuredClone(original);
        change(req);
        return req;
      };

      it('verifies untouched', () => {
        expect(() => verify(original)).not.toThrow();
      });

      it.each<[string, (r: SigV4Request) => void]>([
        ['the method', (r) => (r.method = 'POST')],
        ['the path', (r) => (r.rawPath = '/bucket/dir/key.txT')],
        ['the path encoding', (r) => (r.rawPath = '/bucket/dir%2Fkey.txt')],
        ['a query value', (r) => (r.query[2][1] = 'v2')],
        ['a query name', (r) => (r.query[0][0] = 'Tagging')],
        ['an added query parameter', (r) => r.query.push(['acl', ''])],
        ['a removed query parameter', (r) => r.query.pop()],
        ['a signed header', (r) => (r.headers['x-amz-meta-a'] = '2')],
        ['the content type', (r) => (r.headers['content-type'] = 'text/html')],
        ['the host', (r) => (r.headers.host = 'evil.example.com:9000')],
        ['the payload hash', (r) => (r.headers['x-amz-content-sha256'] = 'UNSIGNED-PAYLOAD')],
        [
          'the signature',
          (r) =>
            // another first hex digit (the signature of a fresh signing time may already start with 0)
            (r.headers.authorization = String(r.headers.authorization).replace(/Signature=(.)/, (_m, c: string) => `Signature=${c === '0' ? '1' : '0'}`)),
        ],
      ])('%s', (_what, change) => {
        const error = thrown(() => verify(tamper(change)));
        expect(error.code).toBe('SignatureDoesNotMatch');
        expect(error.httpStatus).toBe(403);
      });

      it('the secret key', () => {
        expect(thrown(() => verify(original, new Date(), SECRET + 'x')).code).toBe('SignatureDoesNotMatch');
      });

      it('the signed time', () => {
        const req = tamper(
          (r) =>
            (r.headers['x-amz-date'] = formatAmzDate(
              new Date(parseAmzDate(String(r.headers['x-amz-date']))!.getTime() + 1000),
            )),
        );
        expect(thrown(() => verify(req)).code).toBe('SignatureDoesNotMatch');
      });

      it('explains a mismatch with the string to sign and canonical request, as AWS does', () => {
        const error = thrown(() => verify(tamper((r) => (r.headers['x-amz-meta-a'] = '2'))));
        expect(error.extra.AWSAccessKeyId).toBe(TEST_CREDENTIALS.accessKeyId);
        expect(error.extra.CanonicalRequest).toContain('\nx-amz-meta-a:2\n');
        expect(error.extra.CanonicalRequest.split('\n').slice(0, 3)).toEqual([
          'PUT',
          '/bucket/dir/key.txt',
          'tagging=&versionId=v1&x-id=PutObjectTagging',
        ]);
        expect(error.extra.StringToSign).toMatch(
          /^AWS4-HMAC-SHA256\n\d{8}T\d{6}Z\n\d{8}\/us-east-1\/s3\/aws4_request\n[0-9a-f]{64}$/,
        );
        expect(error.extra.StringToSignBytes.startsWith('41 57 53 34')).toBe(true);
        expect(error.extra.SignatureProvided).toBe(parseSigV4(original)!.signature);
      });

      it('an unsigned x-amz-* header is refused, naming it', () => {
        const error = thrown(() => verify(tamper((r) => (r.headers['x-amz-meta-sneaky'] = 'yes'))));
        expect(error).toMatchObject({
          code: 'AccessDenied',
          message: 'There were headers present in the request which were not signed',
          extra: { HeadersNotSigned: 'x-amz-meta-sneaky' },
        });
      });
    });

    it('refuses a request whose signed headers leave out host', async () => {
      const req = await smithySigned({});
      req.headers.authorization = String(req.headers.authorization).replace(
        'SignedHeaders=host;',
        'SignedHeaders=',
      );
      expect(thrown(() => verify(req))).toMatchObject({
        code: 'AccessDenied',
        extra: { HeadersNotSigned: 'host' },
      });
    });
  });

  describe('time', () => {
    const signedAt = new Date('2024-06-01T12:00:00Z');
    let req: SigV4Request;
    beforeAll(async () => {
      req = await smithySigned({ signingDate: signedAt });
    });

    it.each([0, 15 * 60 * 1000, -15 * 60 * 1000])('accepts a clock %d ms away', (offset) => {
      expect(() => verify(req, new Date(signedAt.getTime() + offset))).not.toThrow();
    });

    it.each([15 * 60 * 1000 + 1, -15 * 60 * 1000 - 1])(
      'refuses a clock %d ms away as RequestTimeTooSkewed',
      (offset) => {
        const now = new Date(signedAt.getTime() + offset);
        expect(thrown(() => verify(req, now))).toMatchObject({
          code: 'RequestTimeTooSkewed',
          httpStatus: 403,
          extra: {
            RequestTime: '20240601T120000Z',
            ServerTime: now.toISOString(),
            MaxAllowedSkewMilliseconds: '900000',
          },
        });
      },
    );

    it('honours a custom skew', () => {
      const parsed = parseSigV4(req)!;
      const now = new Date(signedAt.getTime() + 61_000);
      expect(thrown(() => verifySigV4(parsed, req, SECRET, now, { maxSkewMs: 60_000 })).code).toBe(
        'RequestTimeTooSkewed',
      );
    });

    it('refuses a presigned request dated in the future beyond the skew', async () => {
      const server = new CaptureServer();
      await server.start();
      try {
        const url = new URL(
          await getSignedUrl(server.client(), new GetObjectCommand({ Bucket: 'b', Key: 'k' }), {
            signingDate: signedAt,
            expiresIn: 60,
          }),
        );
        const presigned: SigV4Request = {
          method: 'GET',
          rawPath: url.pathname,
          query: parseQueryString(url.search.slice(1)),
          headers: { host: url.host },
        };
        expect(() => verify(presigned, new Date(signedAt.getTime() - 60_000))).not.toThrow();
        expect(thrown(() => verify(presigned, new Date(signedAt.getTime() - 16 * 60_000)))).toMatchObject({
          code: 'AccessDenied',
          message: 'Request is not valid yet',
        });
        expect(() => verify(presigned, new Date(signedAt.getTime() + 60_000))).not.toThrow();
        expect(thrown(() => verify(presigned, new Date(signedAt.getTime() + 60_001))).message).toBe(
          'Request has expired',
        );
        const zero = { ...presigned, query: presigned.query.map(([k, v]): [string, string] => [k, k === 'X-Amz-Expires' ? '0' : v]) };
        expect(thrown(() => verify(zero, signedAt))).toMatchObject({ code: 'AccessDenied', message: 'Request has expired', extra: { 'X-Amz-Expires': '0' } });
      } finally {
        await server.stop();
      }
    });
  });

  it('refuses a credential scoped to another region when the gateway names its region', async () => {
    const req = await smithySigned({});
    const parsed = parseSigV4(req)!;
    expect(() => verifySigV4(parsed, req, SECRET, new Date(), { region: 'us-east-1' })).not.toThrow();
    expect(thrown(() => verifySigV4(parsed, req, SECRET, new Date(), { region: 'eu-west-3' }))).toMatchObject(
      {
        code: 'AuthorizationHeaderMalformed',
        message:
          "The authorization header is malformed; the region 'us-east-1' is wrong; expecting 'eu-west-3'",
        extra: { Region: 'eu-west-3' },
      },
    );
  });

  describe('real S3Client requests captured on the wire', () => {
    const server = new CaptureServer();
    beforeAll(() => server.start());
    afterAll(() => server.stop());

    const keys = [
      'simple',
      'dir/sub dir/file name.txt',
      'ユニコード/файл/ü€.bin',
      'a+b+c',
      '100%25 sure%',
      '~tilde~',
      'k=v&x=y',
      'sp  aces  ',
    ];

    it.each([false, true])(
      'verifies PUT, GET, HEAD, list, copy, tagging and multi-delete (virtual host: %s)',
      async (virtualHost) => {
        server.requests.length = 0;
        const client = server.client({ virtualHost });
        for (const Key of keys) {
          await client.send(
            new PutObjectCommand({
              Bucket: 'bucket-1',
              Key,
              Body: `content of ${Key}`,
              Metadata: { note: 'x  y' },
              ContentType: 'text/plain',
            }),
          );
          await client.send(
            new GetObjectCommand({ Bucket: 'bucket-1', Key, Range: 'bytes=0-3', VersionId: 'v+1 2' }),
          );
          await client.send(new HeadObjectCommand({ Bucket: 'bucket-1', Key }));
          await client.send(
            new CopyObjectCommand({
              Bucket: 'bucket-1',
              Key: `${Key}.copy`,
              CopySource: `bucket-1/${encodeURIComponent(Key)}`,
            }),
          );
          await client.send(
            new PutObjectTaggingCommand({
              Bucket: 'bucket-1',
              Key,
              Tagging: { TagSet: [{ Key: 'k', Value: 'v v' }] },
            }),
          );
          await client.send(
            new UploadPartCommand({
              Bucket: 'bucket-1',
              Key,
              UploadId: 'up/id+=',
              PartNumber: 3,
              Body: Buffer.from('part'),
            }),
          );
        }
        await client.send(
          new ListObjectsV2Command({
            Bucket: 'bucket-1',
            Prefix: 'ユ ニ+',
            Delimiter: '/',
            StartAfter: '',
            MaxKeys: 5,
          }),
        );
        await client.send(
          new DeleteObjectsCommand({ Bucket: 'bucket-1', Delete: { Objects: keys.map((Key) => ({ Key })) } }),
        );
        client.destroy();

        expect(server.requests).toHaveLength(keys.length * 6 + 2);
        for (const req of server.requests) {
          const parsed = parseSigV4(req)!;
          expect(parsed.kind).toBe('header');
          expect(() => verifySigV4(parsed, req, SECRET, new Date())).not.toThrow();
          if (virtualHost) expect(String(req.headers.host)).toMatch(/^bucket-1\.s3\.test\.internal:\d+$/);
        }
        const listing = server.requests[server.requests.length - 2];
        expect(listing.query).toEqual(
          expect.arrayContaining([
            ['prefix', 'ユ ニ+'],
            ['start-after', ''],
          ]),
        );
      },
    );

    it.each([false, true])(
      'verifies presigned GET and PUT URLs fetched by a plain HTTP client (virtual host: %s)',
      async (virtualHost) => {
        const client = server.client({ virtualHost });
        for (const Key of keys) {
          const get = await getSignedUrl(
            client,
            new GetObjectCommand({
              Bucket: 'bucket-1',
              Key,
              ResponseContentDisposition: 'attachment; filename="a b.txt"',
            }),
            { expiresIn: 600 },
          );
          const put = await getSignedUrl(client, new PutObjectCommand({ Bucket: 'bucket-1', Key }), {
            expiresIn: 600,
          });
          for (const [url, method] of [
            [get, 'GET'],
            [put, 'PUT'],
          ] as const) {
            server.requests.length = 0;
            const u = new URL(url);
            // The made-up virtual host does not resolve: send to loopback with the signed Host.
            await server.send(`${u.pathname}${u.search}`, {
              method,
              headers: { host: u.host },
              body: method === 'PUT' ? 'data' : undefined,
            });
            const [req] = server.requests;
            const parsed = parseSigV4(req)!;
            expect(parsed).toMatchObject({
              kind: 'query',
              payloadHash: 'UNSIGNED-PAYLOAD',
              expiresSeconds: 600,
            });
            expect(() => verifySigV4(parsed, req, SECRET, new Date())).not.toThrow();
            const forged = {
              ...req,
              query: req.query.map(([n, v]): [string, string] => [n, n === 'X-Amz-Expires' ? '604800' : v]),
            };
            expect(thrown(() => verifySigV4(parseSigV4(forged)!, forged, SECRET, new Date())).code).toBe(
              'SignatureDoesNotMatch',
            );
          }
        }
        client.destroy();
      },
    );
  });
});

describe(canonicalQueryString.name, () => {
  it('encodes per RFC 3986, sorts encoded names then values by byte, and keeps empty values', () => {
    const sut = canonicalQueryString(
      [
        ['b', '2'],
        ['a', 'z'],
        ['a', ''],
        ['a', 'y'],
        ['A', '1'],
        ['c d', 'e/f~g*h'],
        ['ü', '+'],
      ],
      false,
    );
    expect(sut).toBe('%C3%BC=%2B&A=1&a=&a=y&a=z&b=2&c%20d=e%2Ff~g%2Ah');
  });

  it('leaves out X-Amz-Signature for presigned requests only', () => {
    expect(
      canonicalQueryString(
        [
          ['X-Amz-Signature', 's'],
          ['a', '1'],
        ],
        true,
      ),
    ).toBe('a=1');
    expect(canonicalQueryString([['X-Amz-Signature', 's']], false)).toBe('X-Amz-Signature=s');
  });
});

describe(uriEncode.name, () => {
  it('keeps only unreserved characters', () => {
    expect(uriEncode("AZaz09-_.~ !*'()/?#[]@&=+$,;%é")).toBe(
      'AZaz09-_.~%20%21%2A%27%28%29%2F%3F%23%5B%5D%40%26%3D%2B%24%2C%3B%25%C3%A9',
    );
  });
});

describe(parseQueryString.name, () => {
  it('decodes pairs in order, + as space, bare names as empty values, bad escapes literally', () => {
    expect(parseQueryString('b=1&a&c=x+y%2Bz&&d=%zz&e=%E2%82%AC&f=a=b')).toEqual([
      ['b', '1'],
      ['a', ''],
      ['c', 'x y+z'],
      ['d', '%zz'],
      ['e', '€'],
      ['f', 'a=b'],
    ]);
    expect(parseQueryString('')).toEqual([]);
  });
});

describe(parseAmzDate.name, () => {
  it('parses the ISO basic format and rejects impossible dates', () => {
    expect(parseAmzDate('20240229T235959Z')).toEqual(new Date('2024-02-29T23:59:59Z'));
    expect(parseAmzDate('20230229T000000Z')).toBeUndefined();
    expect(parseAmzDate('20240101T240000Z')).toBeUndefined();
    expect(formatAmzDate(new Date('2024-02-29T23:59:59.999Z'))).toBe('20240229T235959Z');
  });
});

describe(cachedSigningKey.name, () => {
  it('equals the derived key and is reused per secret, day, region and service', () => {
    const a = cachedSigningKey('secret-one-0123456789', '20261130', 'us-east-1', 's3');
    expect(a.equals(deriveSigningKey('secret-one-0123456789', '20261130', 'us-east-1', 's3'))).toBe(true);
    expect(cachedSigningKey('secret-one-0123456789', '20261130', 'us-east-1', 's3')).toBe(a);
    for (const [secret, day, region] of [
      ['secret-two-0123456789', '20261130', 'us-east-1'],
      ['secret-one-0123456789', '20261201', 'us-east-1'],
      ['secret-one-0123456789', '20261130', 'eu-west-1'],
    ]) {
      const other = cachedSigningKey(secret, day, region, 's3');
      expect(other.equals(a)).toBe(false);
      expect(other.equals(deriveSigningKey(secret, day, region, 's3'))).toBe(true);
    }
  });
});

describe('headers sent on several lines', () => {
  // The AWS SDK for Go v2 sends GetObjectAttributes' list one line per value and signs them joined by ","
  it('are signed joined by ",", not by the ", " of Node\'s merged headers', async () => {
    const signed = await smithySigned({ query: { attributes: '' }, headers: { 'x-amz-object-attributes': 'ETag,Checksum' } });
    const lines = ['x-amz-object-attributes', 'ETag', 'x-amz-object-attributes', 'Checksum', 'host', '127.0.0.1:9000'];
    const asNodeGivesIt: SigV4Request = { ...signed, headers: { ...signed.headers, 'x-amz-object-attributes': 'ETag, Checksum' } };
    expect(thrown(() => verify(asNodeGivesIt)).code).toBe('SignatureDoesNotMatch');
    expect(verify({ ...asNodeGivesIt, repeatedHeaders: repeatedHeaders(lines) }).scope).toMatch(/\/us-east-1\/s3\/aws4_request$/);
  });

  it('are found in rawHeaders whatever their case, in order; none when every header came once', () => {
    expect(repeatedHeaders(['Host', 'h', 'X-Amz-Meta-A', '1', 'x-amz-meta-a', '2', 'X-AMZ-META-A', '3'])).toEqual({ 'x-amz-meta-a': ['1', '2', '3'] });
    expect(repeatedHeaders(['Host', 'h', 'X-Amz-Date', 'd'])).toBeUndefined();
  });
});
