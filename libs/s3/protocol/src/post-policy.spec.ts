import { createHmac } from 'crypto';
import { Readable } from 'stream';
import { thrown } from './spec-support/thrown';
import { formBoundary, readFormUntilFile } from './form-data';
import { checkPostPolicy, parsePostPolicy, postSignatureOf, postSizeError, verifyPostSignature } from './post-policy';
import { deriveSigningKey } from './sigv4-signing';

const b64 = (doc: unknown) => Buffer.from(typeof doc === 'string' ? doc : JSON.stringify(doc)).toString('base64');
const NOW = new Date('2026-12-01T12:00:00Z');

describe('POST policy', () => {
  it('refuses documents AWS refuses', () => {
    expect(thrown(() => parsePostPolicy(b64('not json'))).message).toBe('Invalid Policy: Invalid JSON.');
    expect(thrown(() => parsePostPolicy(b64({ conditions: [] }))).message).toBe('Invalid Policy: Policy missing expiration.');
    expect(thrown(() => parsePostPolicy(b64({ expiration: '2026-12-02T00:00:00Z' }))).message).toBe('Invalid Policy: Policy missing conditions.');
    expect(thrown(() => parsePostPolicy(b64({ expiration: 'tomorrow', conditions: [] }))).code).toBe('InvalidPolicyDocument');
    expect(thrown(() => parsePostPolicy(b64({ expiration: '2026-12-02T00:00:00Z', conditions: [['content-length-range', 10, 1]] }))).code).toBe('InvalidPolicyDocument');
    expect(thrown(() => parsePostPolicy(b64({ expiration: '2026-12-02T00:00:00Z', conditions: [['matches', '$key', 'x']] }))).code).toBe('InvalidPolicyDocument');
  });

  const policy = parsePostPolicy(
    b64({
      expiration: '2026-12-01T13:00:00.000Z',
      conditions: [{ bucket: 'b' }, ['starts-with', '$key', 'user/'], ['eq', '$Content-Type', 'image/png'], ['content-length-range', 1, 1024]],
    }),
  );
  const fields = (extra: Record<string, string> = {}) => new Map(Object.entries({ bucket: 'b', key: 'user/a.png', 'content-type': 'image/png', policy: 'p', ...extra }));

  it('accepts fields meeting every condition and returns the size range', () => {
    expect(checkPostPolicy(policy, fields(), NOW)).toEqual({ min: 1, max: 1024 });
    expect(checkPostPolicy(policy, fields({ 'x-ignore-me': '1', 'x-amz-signature': 's' }), NOW)).toEqual({ min: 1, max: 1024 });
  });

  it.each([
    ['a key outside the prefix', { key: 'other/a.png' }, 'Invalid according to Policy: Policy Condition failed: ["starts-with","$key","user/"]'],
    ['another bucket', { bucket: 'c' }, 'Invalid according to Policy: Policy Condition failed: ["eq", "$bucket", "b"]'],
    ['a different content type', { 'content-type': 'image/gif' }, 'Invalid according to Policy: Policy Condition failed: ["eq","$Content-Type","image/png"]'],
    ['a field no condition names', { 'x-amz-meta-a': '1' }, 'Invalid according to Policy: Extra input fields: x-amz-meta-a'],
  ])('refuses %s', (_name, extra, message) => {
    const e = thrown(() => checkPostPolicy(policy, fields(extra), NOW));
    expect([e.code, e.message]).toEqual(['AccessDenied', message]);
  });

  it('refuses a policy that does not name the bucket', () => {
    const unbound = parsePostPolicy(b64({ expiration: '2026-12-01T13:00:00Z', conditions: [['starts-with', '$key', '']] }));
    expect(thrown(() => checkPostPolicy(unbound, new Map([['bucket', 'b'], ['key', 'k']]), NOW)).message).toBe(
      'Invalid according to Policy: Policy Condition failed: ["eq", "$bucket", "b"]',
    );
  });

  it('refuses an expired policy', () => {
    expect(thrown(() => checkPostPolicy(policy, fields(), new Date('2026-12-01T13:00:01Z'))).message).toBe('Invalid according to Policy: Policy expired.');
  });

  it('checks content-length-range', () => {
    expect(postSizeError({ min: 2, max: 4 }, 3)).toBeUndefined();
    expect(postSizeError({ min: 2, max: 4 }, 1)).toMatchObject({ code: 'EntityTooSmall', extra: { ProposedSize: '1', MinSizeAllowed: '2' } });
    expect(postSizeError({ min: 2, max: 4 }, 5)).toMatchObject({ code: 'EntityTooLarge', extra: { ProposedSize: '5', MaxSizeAllowed: '4' } });
  });

  it('verifies SigV4 and V2 policy signatures', () => {
    const secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
    const encoded = b64({ expiration: '2026-12-01T13:00:00Z', conditions: [] });
    const v4sig = createHmac('sha256', deriveSigningKey(secret, '20261201', 'us-east-1', 's3')).update(encoded).digest('hex');
    const v4 = postSignatureOf(
      new Map([
        ['policy', encoded],
        ['x-amz-algorithm', 'AWS4-HMAC-SHA256'],
        ['x-amz-credential', 'AKID/20261201/us-east-1/s3/aws4_request'],
        ['x-amz-date', '20261201T120000Z'],
        ['x-amz-signature', v4sig],
      ]),
    )!;
    expect(() => verifyPostSignature(v4, encoded, secret, 'us-east-1')).not.toThrow();
    expect(thrown(() => verifyPostSignature(v4, encoded, 'other', 'us-east-1')).code).toBe('SignatureDoesNotMatch');
    expect(thrown(() => verifyPostSignature(v4, encoded, secret, 'eu-west-1')).code).toBe('InvalidArgument');
    const v2 = postSignatureOf(new Map([['policy', encoded], ['awsaccesskeyid', 'AKID'], ['signature', createHmac('sha1', secret).update(encoded).digest('base64')]]))!;
    expect(v2).toMatchObject({ version: 2, accessKeyId: 'AKID' });
    expect(() => verifyPostSignature(v2, encoded, secret, 'us-east-1')).not.toThrow();
    expect(postSignatureOf(new Map([['key', 'k']]))).toBeUndefined();
    expect(thrown(() => postSignatureOf(new Map([['policy', encoded]]))).message).toContain("must contain a field named 'AWSAccessKeyId'");
    expect(thrown(() => postSignatureOf(new Map([['policy', encoded], ['x-amz-algorithm', 'AWS4-HMAC-SHA256']]))).code).toBe('InvalidArgument');
  });
});

describe('multipart/form-data reader', () => {
  const boundary = '----b0undary';
  const part = (name: string, value: string, filename?: string) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename !== undefined ? `; filename="${filename}"\r\nContent-Type: text/plain` : ''}\r\n\r\n${value}\r\n`;

  /** The body cut into pieces of `size` bytes, so delimiters straddle chunks. */
  const chunked = (text: string, size: number) => {
    const buf = Buffer.from(text);
    const pieces: Buffer[] = [];
    for (let i = 0; i < buf.length; i += size) pieces.push(buf.subarray(i, i + size));
    return Readable.from(pieces);
  };

  it.each([1, 3, 7, 64, 4096])('reads fields and streams the file (chunks of %i bytes)', async (size) => {
    const file = `line one\r\n--${boundary.slice(0, 5)} not a boundary\r\n`.repeat(20);
    const body = part('key', 'uploads/${filename}') + part('X-Amz-Meta-A', 'ä') + part('file', file, 'C:\\dir\\notes.txt') + part('after', 'ignored') + `--${boundary}--\r\n`;
    const sut = await readFormUntilFile(chunked(body, size), boundary);
    expect([...sut.fields]).toEqual([['key', 'uploads/${filename}'], ['x-amz-meta-a', 'ä']]);
    expect([sut.file!.field, sut.file!.filename, sut.file!.contentType]).toEqual(['file', 'notes.txt', 'text/plain']);
    const bytes: Buffer[] = [];
    for await (const c of sut.file!.stream) bytes.push(c as Buffer);
    expect(Buffer.concat(bytes).toString()).toBe(file);
  });

  it('takes the part named file as the upload, and parts before it as fields even when they carry a filename', async () => {
    const body = part('key', 'foo.txt', 'key') + part('acl', 'private', 'acl') + part('file', 'bar', 'file') + `--${boundary}--\r\n`;
    const sut = await readFormUntilFile(chunked(body, 7), boundary);
    expect([...sut.fields]).toEqual([['key', 'foo.txt'], ['acl', 'private']]);
    expect(sut.file!.field).toBe('file');
    const bytes: Buffer[] = [];
    for await (const c of sut.file!.stream) bytes.push(c as Buffer);
    expect(Buffer.concat(bytes).toString()).toBe('bar');
  });

  it('reports a form without a file, a truncated body, and too many bytes before the file', async () => {
    expect((await readFormUntilFile(chunked(part('key', 'k') + `--${boundary}--\r\n`, 5), boundary)).file).toBeUndefined();
    await expect(readFormUntilFile(chunked(part('key', 'k').slice(0, -4), 5), boundary)).rejects.toMatchObject({ code: 'MalformedPOSTRequest' });
    await expect(readFormUntilFile(chunked(part('key', 'x'.repeat(30_000)), 1000), boundary)).rejects.toMatchObject({ code: 'MaxPostPreDataLengthExceeded' });
    const truncatedFile = await readFormUntilFile(chunked(part('file', 'abc', 'f').slice(0, -2), 2), boundary);
    await expect((async () => {
      for await (const _ of truncatedFile.file!.stream) void _;
    })()).rejects.toMatchObject({ code: 'MalformedPOSTRequest' });
  });

  it('finds the boundary of a form Content-Type', () => {
    expect(formBoundary('multipart/form-data; boundary=abc')).toBe('abc');
    expect(formBoundary('Multipart/Form-Data; charset=utf-8; boundary="a b"')).toBe('a b');
    expect(formBoundary('application/x-www-form-urlencoded')).toBeUndefined();
    expect(formBoundary(undefined)).toBeUndefined();
  });
});
