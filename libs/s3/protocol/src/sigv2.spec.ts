import { createHmac } from 'crypto';
import { thrown } from './spec-support/thrown';
import { parseQueryString } from './sigv4-signing';
import { parseSigV2, stringToSignV2, verifySigV2 } from './sigv2';

/** The worked examples of AWS's "Signing and Authenticating REST Requests" (Signature Version 2). */
const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const AKID = 'AKIAIOSFODNN7EXAMPLE';

function request(method: string, url: string, headers: Record<string, string | string[]>) {
  const q = url.indexOf('?');
  return {
    method,
    rawPath: q < 0 ? url : url.slice(0, q),
    query: parseQueryString(q < 0 ? '' : url.slice(q + 1)),
    headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])),
  };
}

describe('Signature Version 2', () => {
  const vectors: { name: string; method: string; url: string; bucket?: string; headers: Record<string, string | string[]>; sts: string; sig?: string }[] = [
    {
      name: 'Object GET',
      method: 'GET',
      url: '/photos/puppy.jpg',
      bucket: 'johnsmith',
      headers: { Date: 'Tue, 27 Mar 2007 19:36:42 +0000' },
      sts: 'GET\n\n\nTue, 27 Mar 2007 19:36:42 +0000\n/johnsmith/photos/puppy.jpg',
      sig: 'bWq2s1WEIj+Ydj0vQ697zp+IXMU=',
    },
    {
      name: 'Object PUT',
      method: 'PUT',
      url: '/photos/puppy.jpg',
      bucket: 'johnsmith',
      headers: { 'Content-Type': 'image/jpeg', 'Content-Length': '94328', Date: 'Tue, 27 Mar 2007 21:15:45 +0000' },
      sts: 'PUT\n\nimage/jpeg\nTue, 27 Mar 2007 21:15:45 +0000\n/johnsmith/photos/puppy.jpg',
      sig: 'MyyxeRY7whkBe+bq8fHCL/2kKUg=',
    },
    {
      name: 'List (query parameters that are no sub-resource are not signed)',
      method: 'GET',
      url: '/?prefix=photos&max-keys=50&marker=puppy',
      bucket: 'johnsmith',
      headers: { 'User-Agent': 'Mozilla/5.0', Date: 'Tue, 27 Mar 2007 19:42:41 +0000' },
      sts: 'GET\n\n\nTue, 27 Mar 2007 19:42:41 +0000\n/johnsmith/',
      sig: 'htDYFYduRNen8P9ZfE/s9SuKy0U=',
    },
    {
      name: 'Fetch ACL (a sub-resource)',
      method: 'GET',
      url: '/?acl',
      bucket: 'johnsmith',
      headers: { Date: 'Tue, 27 Mar 2007 19:44:46 +0000' },
      sts: 'GET\n\n\nTue, 27 Mar 2007 19:44:46 +0000\n/johnsmith/?acl',
      sig: 'c2WLPFtWHVgbEmeEG93a4cG37dM=',
    },
    {
      name: 'Delete, path style, x-amz-date blanks the Date line',
      method: 'DELETE',
      url: '/johnsmith/photos/puppy.jpg',
      headers: { 'User-Agent': 'dotnet', Date: 'Tue, 27 Mar 2007 21:20:27 +0000', 'x-amz-date': 'Tue, 27 Mar 2007 21:20:26 +0000' },
      // the string to sign only: the signature printed beside it could not be confirmed here
      sts: 'DELETE\n\n\n\nx-amz-date:Tue, 27 Mar 2007 21:20:26 +0000\n/johnsmith/photos/puppy.jpg',
    },
    {
      name: 'Upload with x-amz-* headers folded, sorted and joined',
      method: 'PUT',
      url: '/db-backup.dat.gz',
      bucket: 'static.johnsmith.net',
      headers: {
        'User-Agent': 'curl/7.15.5',
        Date: 'Tue, 27 Mar 2007 21:06:08 +0000',
        'x-amz-acl': 'public-read',
        'content-type': 'application/x-download',
        'Content-MD5': '4gJE4saaMU4BqNR0kLY+lw==',
        'X-Amz-Meta-ReviewedBy': ['joe@johnsmith.net', 'jane@johnsmith.net'],
        'X-Amz-Meta-FileChecksum': '0x02661779',
        'X-Amz-Meta-ChecksumAlgorithm': 'crc32',
        'Content-Disposition': 'attachment; filename=database.dat',
        'Content-Encoding': 'gzip',
        'Content-Length': '5913339',
      },
      sts:
        'PUT\n4gJE4saaMU4BqNR0kLY+lw==\napplication/x-download\nTue, 27 Mar 2007 21:06:08 +0000\n' +
        'x-amz-acl:public-read\nx-amz-meta-checksumalgorithm:crc32\nx-amz-meta-filechecksum:0x02661779\n' +
        'x-amz-meta-reviewedby:joe@johnsmith.net,jane@johnsmith.net\n/static.johnsmith.net/db-backup.dat.gz',
      sig: 'ilyl83RwaSoYIEdixDQcA4OnAnc=',
    },
    {
      name: 'List all my buckets',
      method: 'GET',
      url: '/',
      headers: { Date: 'Wed, 28 Mar 2007 01:29:59 +0000' },
      sts: 'GET\n\n\nWed, 28 Mar 2007 01:29:59 +0000\n/',
      sig: 'qGdzdERIC03wnaRNKh6OqZehG9s=',
    },
    {
      name: 'Unicode keys: the path is signed as sent',
      method: 'GET',
      url: '/dictionary/fran%C3%A7ais/pr%c3%a9f%c3%a8re',
      headers: { Date: 'Wed, 28 Mar 2007 01:49:49 +0000' },
      sts: 'GET\n\n\nWed, 28 Mar 2007 01:49:49 +0000\n/dictionary/fran%C3%A7ais/pr%c3%a9f%c3%a8re',
      sig: 'DNEZGsoieTZ92F3bUfSPQcbGmlM=',
    },
  ];

  it.each(vectors)('AWS example: $name', ({ method, url, bucket, headers, sts, sig }) => {
    const req = request(method, url, { ...headers, Authorization: `AWS ${AKID}:${sig ?? 'x'}` });
    expect(stringToSignV2(req, { virtualHostBucket: bucket })).toBe(sts);
    if (sig === undefined) return;
    const parsed = parseSigV2(req)!;
    expect(parsed).toEqual({ kind: 'header', accessKeyId: AKID, signature: sig });
    const date = new Date(Date.parse(headers['x-amz-date'] as string ?? headers['Date']));
    expect(() => verifySigV2(parsed, req, { virtualHostBucket: bucket }, SECRET, date)).not.toThrow();
  });

  it('AWS example: query string authentication signs Expires in place of Date', () => {
    const req = request('GET', '/photos/puppy.jpg?AWSAccessKeyId=AKIAIOSFODNN7EXAMPLE&Signature=NpgCjnDzrM%2BWFzoENXmpNDUsSn8%3D&Expires=1175139620', {});
    const parsed = parseSigV2(req)!;
    expect(parsed).toEqual({ kind: 'query', accessKeyId: AKID, signature: 'NpgCjnDzrM+WFzoENXmpNDUsSn8=', expires: 1175139620 });
    expect(stringToSignV2(req, { virtualHostBucket: 'johnsmith' }, parsed.expires)).toBe('GET\n\n\n1175139620\n/johnsmith/photos/puppy.jpg');
    expect(() => verifySigV2(parsed, req, { virtualHostBucket: 'johnsmith' }, SECRET, new Date(1175139000_000))).not.toThrow();
    expect(thrown(() => verifySigV2(parsed, req, { virtualHostBucket: 'johnsmith' }, SECRET, new Date(1175139621_000)))).toMatchObject({
      code: 'AccessDenied',
      message: 'Request has expired',
    });
  });

  it('a wrong signature is SignatureDoesNotMatch with the string to sign', () => {
    const req = request('GET', '/b/k', { Date: 'Tue, 27 Mar 2007 19:36:42 +0000', Authorization: `AWS ${AKID}:AAAAAAAAAAAAAAAAAAAAAAAAAAA=` });
    const e = thrown(() => verifySigV2(parseSigV2(req)!, req, {}, SECRET, new Date('2007-03-27T19:36:42Z')));
    expect(e.code).toBe('SignatureDoesNotMatch');
    expect(e.extra.StringToSign).toBe('GET\n\n\nTue, 27 Mar 2007 19:36:42 +0000\n/b/k');
  });

  it("a path-style request for a bucket signed over '/bucket/' (botocore's V2 signer) is accepted as '/bucket' is; a key's path is not padded", () => {
    const date = 'Tue, 27 Mar 2007 19:36:42 +0000';
    const now = new Date('2007-03-27T19:36:42Z');
    const signed = (sts: string) => createHmac('sha1', SECRET).update(sts).digest('base64');
    const bucket = request('PUT', '/johnsmith', { Date: date, Authorization: `AWS ${AKID}:${signed(`PUT\n\n\n${date}\n/johnsmith/`)}` });
    expect(() => verifySigV2(parseSigV2(bucket)!, bucket, {}, SECRET, now)).not.toThrow();
    const plain = request('PUT', '/johnsmith', { Date: date, Authorization: `AWS ${AKID}:${signed(`PUT\n\n\n${date}\n/johnsmith`)}` });
    expect(() => verifySigV2(parseSigV2(plain)!, plain, {}, SECRET, now)).not.toThrow();
    const key = request('PUT', '/johnsmith/k', { Date: date, Authorization: `AWS ${AKID}:${signed(`PUT\n\n\n${date}\n/johnsmith/k/`)}` });
    expect(thrown(() => verifySigV2(parseSigV2(key)!, key, {}, SECRET, now)).code).toBe('SignatureDoesNotMatch');
  });

  it('dates: missing or invalid is AccessDenied, far off is RequestTimeTooSkewed', () => {
    const now = new Date('2007-03-27T19:36:42Z');
    const check = (headers: Record<string, string>) => {
      const req = request('GET', '/b/k', { ...headers, Authorization: `AWS ${AKID}:x` });
      return thrown(() => verifySigV2(parseSigV2(req)!, req, {}, SECRET, now));
    };
    expect(check({})).toMatchObject({ code: 'AccessDenied', message: 'AWS authentication requires a valid Date or x-amz-date header' });
    expect(check({ Date: '' })).toMatchObject({ code: 'AccessDenied' });
    expect(check({ Date: 'Bad Date' })).toMatchObject({ code: 'AccessDenied' });
    expect(check({ 'x-amz-date': 'Bad Date' })).toMatchObject({ code: 'AccessDenied' });
    expect(check({ Date: 'Tue, 07 Jul 1950 21:53:04 GMT' })).toMatchObject({ code: 'AccessDenied' });
    expect(check({ Date: 'Tue, 07 Jul 9999 21:53:04 GMT' })).toMatchObject({ code: 'RequestTimeTooSkewed' });
    expect(check({ Date: 'Tue, 27 Mar 2007 19:20:00 GMT' })).toMatchObject({ code: 'RequestTimeTooSkewed' });
    expect(check({ Date: 'Tue, 27 Mar 2007 19:30:00 GMT' })).toMatchObject({ code: 'SignatureDoesNotMatch' });
  });

  it('leaves requests without V2 authentication alone and refuses a malformed V2 header', () => {
    expect(parseSigV2(request('GET', '/b/k', {}))).toBeUndefined();
    expect(parseSigV2(request('GET', '/b/k', { Authorization: 'AWS4-HMAC-SHA256 Credential=x' }))).toBeUndefined();
    expect(thrown(() => parseSigV2(request('GET', '/b/k', { Authorization: 'AWS nocolon' })))).toMatchObject({ code: 'InvalidArgument' });
    expect(thrown(() => parseSigV2(request('GET', '/b/k?AWSAccessKeyId=A&Expires=1', {})))).toMatchObject({ code: 'AccessDenied' });
  });

  it('signs sub-resources sorted with decoded values, and response overrides', () => {
    const req = request('GET', '/b/k?versionId=v%2F1&response-content-type=text%2Fplain&x-id=GetObject&uploads', { Date: 'd' });
    expect(stringToSignV2(req, {})).toBe('GET\n\n\nd\n/b/k?response-content-type=text/plain&uploads&versionId=v/1');
  });
});
