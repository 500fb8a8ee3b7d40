import { createHash } from 'crypto';
import { S3Error } from './errors';
import {
  contentRange,
  etagMatches,
  evaluateCopySourcePreconditions,
  evaluatePreconditions,
  httpDate,
  isoDate,
  md5Etag,
  multipartEtag,
  parseCopySource,
  parseHttpDate,
  parseRange,
  preconditionsFromHeaders,
  quoteEtag,
  s3UrlEncode,
  unquoteEtag,
} from './http-semantics';

function thrown(fn: () => unknown): S3Error {
  try {
    fn();
  } catch (error) {
    if (error instanceof S3Error) return error;
    throw error;
  }
  throw new Error('expected an S3Error');
}

describe(parseRange.name, () => {
  it.each<[string | undefined, { start: number; endInclusive: number } | undefined]>([
    [undefined, undefined],
    ['bytes=0-9', { start: 0, endInclusive: 9 }],
    ['bytes=5-', { start: 5, endInclusive: 99 }],
    ['bytes=-10', { start: 90, endInclusive: 99 }],
    ['bytes=-1000', { start: 0, endInclusive: 99 }],
    ['bytes=90-1000', { start: 90, endInclusive: 99 }],
    ['bytes=99-99', { start: 99, endInclusive: 99 }],
    ['BYTES = 1 - 2', { start: 1, endInclusive: 2 }],
    // ignored: the whole object is served
    ['bytes=5-2', undefined],
    ['bytes=0-1,5-6', undefined],
    ['bytes=-', undefined],
    ['items=0-5', undefined],
    ['bytes=a-b', undefined],
    ['0-5', undefined],
  ])('reads %j of a 100-byte object as %j', (header, expected) => {
    expect(parseRange(header, 100)).toEqual(expected);
  });

  it.each<[string, number]>([
    ['bytes=100-', 100],
    ['bytes=100-200', 100],
    ['bytes=-0', 100],
    ['bytes=0-', 0],
    ['bytes=-5', 0],
  ])('rejects %j of a %d-byte object as InvalidRange 416', (header, size) => {
    expect(thrown(() => parseRange(header, size))).toMatchObject({
      code: 'InvalidRange',
      httpStatus: 416,
      extra: { RangeRequested: header, ActualObjectSize: String(size) },
      headers: { 'Content-Range': `bytes */${size}` },
    });
  });

  it('formats Content-Range', () => {
    expect(contentRange({ start: 0, endInclusive: 9 }, 100)).toBe('bytes 0-9/100');
  });
});

describe(evaluatePreconditions.name, () => {
  const object = { etag: '"abc"', lastModified: new Date('2024-03-01T10:00:00.700Z') };
  const before = 'Fri, 01 Mar 2024 09:00:00 GMT';
  const same = 'Fri, 01 Mar 2024 10:00:00 GMT'; // the same second as lastModified
  const after = 'Fri, 01 Mar 2024 11:00:00 GMT';

  it.each<[string, Parameters<typeof evaluatePreconditions>[0], string]>([
    ['no conditions', {}, 'proceed'],
    ['If-Match equal', { ifMatch: '"abc"' }, 'proceed'],
    ['If-Match unquoted', { ifMatch: 'abc' }, 'proceed'],
    ['If-Match in a list', { ifMatch: '"x", "abc"' }, 'proceed'],
    ['If-Match *', { ifMatch: '*' }, 'proceed'],
    ['If-Match different', { ifMatch: '"x"' }, 'failed'],
    ['If-Unmodified-Since before', { ifUnmodifiedSince: before }, 'failed'],
    ['If-Unmodified-Since same second', { ifUnmodifiedSince: same }, 'proceed'],
    ['If-Match true + If-Unmodified-Since false', { ifMatch: '"abc"', ifUnmodifiedSince: before }, 'proceed'],
    ['If-Match false + If-Unmodified-Since true', { ifMatch: '"x"', ifUnmodifiedSince: after }, 'failed'],
    ['If-None-Match equal', { ifNoneMatch: '"abc"' }, 'not-modified'],
    ['If-None-Match weak', { ifNoneMatch: 'W/"abc"' }, 'not-modified'],
    ['If-None-Match *', { ifNoneMatch: '*' }, 'not-modified'],
    ['If-None-Match different', { ifNoneMatch: '"x"' }, 'proceed'],
    ['If-Modified-Since after', { ifModifiedSince: after }, 'not-modified'],
    ['If-Modified-Since same second', { ifModifiedSince: same }, 'not-modified'],
    ['If-Modified-Since before', { ifModifiedSince: before }, 'proceed'],
    [
      'If-None-Match false + If-Modified-Since true',
      { ifNoneMatch: '"abc"', ifModifiedSince: before },
      'not-modified',
    ],
    [
      'If-None-Match true + If-Modified-Since false',
      { ifNoneMatch: '"x"', ifModifiedSince: after },
      'proceed',
    ],
    ['If-Match false + If-None-Match false', { ifMatch: '"x"', ifNoneMatch: '"abc"' }, 'failed'],
    ['an unparsable date', { ifModifiedSince: 'yesterday', ifUnmodifiedSince: 'soon' }, 'proceed'],
  ])('%s → %s', (_case, conditions, expected) => {
    expect(evaluatePreconditions(conditions, object)).toBe(expected);
  });
});

describe(evaluateCopySourcePreconditions.name, () => {
  const object = { etag: '"abc"', lastModified: new Date('2024-03-01T10:00:00Z') };
  it.each<[string, Parameters<typeof evaluateCopySourcePreconditions>[0], string]>([
    [
      'if-match true + if-unmodified-since false',
      { ifMatch: '"abc"', ifUnmodifiedSince: 'Fri, 01 Mar 2024 09:00:00 GMT' },
      'proceed',
    ],
    [
      'if-none-match false + if-modified-since true',
      { ifNoneMatch: '"abc"', ifModifiedSince: 'Fri, 01 Mar 2024 09:00:00 GMT' },
      'failed',
    ],
    ['if-modified-since false', { ifModifiedSince: 'Fri, 01 Mar 2024 11:00:00 GMT' }, 'failed'],
    ['if-match false', { ifMatch: '"x"' }, 'failed'],
    ['none', {}, 'proceed'],
  ])('%s → %s', (_case, conditions, expected) => {
    expect(evaluateCopySourcePreconditions(conditions, object)).toBe(expected);
  });

  it('reads the prefixed headers', () => {
    const headers: Record<string, string> = { 'x-amz-copy-source-if-match': '"a"', 'if-match': '"b"' };
    expect(preconditionsFromHeaders((n) => headers[n], 'x-amz-copy-source-')).toEqual({ ifMatch: '"a"' });
    expect(preconditionsFromHeaders((n) => headers[n])).toEqual({ ifMatch: '"b"' });
  });
});

describe('dates', () => {
  it('formats RFC 7231 and ISO 8601 with milliseconds', () => {
    const d = new Date('1994-11-06T08:49:37.5Z');
    expect(httpDate(d)).toBe('Sun, 06 Nov 1994 08:49:37 GMT');
    expect(isoDate(d)).toBe('1994-11-06T08:49:37.500Z');
  });

  it.each([
    'Sun, 06 Nov 1994 08:49:37 GMT',
    'Sunday, 06-Nov-94 08:49:37 GMT',
    'Sun Nov  6 08:49:37 1994 GMT',
    '1994-11-06T08:49:37Z',
  ])('parses %j', (value) => expect(parseHttpDate(value)).toEqual(new Date('1994-11-06T08:49:37Z')));

  it('returns undefined for garbage', () => {
    expect(parseHttpDate('not a date')).toBeUndefined();
    expect(parseHttpDate(undefined)).toBeUndefined();
  });
});

describe(s3UrlEncode.name, () => {
  // Values observed from AWS S3 with encoding-type=url.
  it.each([
    ['a b.txt', 'a+b.txt'],
    ['a+b.txt', 'a%2Bb.txt'],
    ['100%.csv', '100%25.csv'],
    ['한글/x.txt', '%ED%95%9C%EA%B8%80/x.txt'],
    ['run books/', 'run+books/'],
  ])('encodes %j as %j', (key, expected) => expect(s3UrlEncode(key)).toBe(expected));

  it('keeps the Java URLEncoder safe set and /, encodes the rest including ~ and control characters', () => {
    expect(s3UrlEncode('AZaz09.-*_/')).toBe('AZaz09.-*_/');
    expect(s3UrlEncode("~!'()&=?#\u0001\n")).toBe('%7E%21%27%28%29%26%3D%3F%23%01%0A');
  });

  it('decodes back with unquote_plus semantics for any key', () => {
    const unquotePlus = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    for (const key of ['a b+c', '%2B', 'ü € 😀', '\u0000\u001f', '/+/ /'])
      expect(unquotePlus(s3UrlEncode(key))).toBe(key);
  });
});

describe(parseCopySource.name, () => {
  it.each<[string, ReturnType<typeof parseCopySource>]>([
    ['bucket/key', { bucket: 'bucket', key: 'key' }],
    ['/bucket/dir/key.txt', { bucket: 'bucket', key: 'dir/key.txt' }],
    ['bucket/a%20b%2Bc+d', { bucket: 'bucket', key: 'a b+c+d' }],
    ['bucket/%C3%BC%3Fq', { bucket: 'bucket', key: 'ü?q' }],
    [
      'bucket/key?versionId=3HL4kqtJlcpXroDTDmJ%2Bg',
      { bucket: 'bucket', key: 'key', versionId: '3HL4kqtJlcpXroDTDmJ+g' },
    ],
    ['bucket/key?versionId=null', { bucket: 'bucket', key: 'key', versionId: 'null' }],
  ])('reads %j', (header, expected) => expect(parseCopySource(header)).toEqual(expected));

  it.each(['bucket', 'bucket/', '/key', '', 'bucket/%E0%A4%A', '/'])(
    'rejects %j as InvalidArgument',
    (header) => {
      expect(thrown(() => parseCopySource(header)).code).toBe('InvalidArgument');
    },
  );

  it('rejects an empty version id', () => {
    expect(thrown(() => parseCopySource('b/k?versionId=')).message).toMatch(
      /Version id cannot be the empty string/,
    );
  });
});

describe('ETags', () => {
  it('quotes and unquotes', () => {
    expect(quoteEtag('abc')).toBe('"abc"');
    expect(quoteEtag('"abc"')).toBe('"abc"');
    expect(unquoteEtag('"abc-2"')).toBe('abc-2');
    expect(unquoteEtag('abc')).toBe('abc');
    expect(etagMatches('"abc"', 'abc')).toBe(true);
  });

  it('computes single-part and multipart ETags as S3', () => {
    const md5 = (s: string) => createHash('md5').update(s).digest();
    expect(md5Etag(md5(''))).toBe('"d41d8cd98f00b204e9800998ecf8427e"');
    const parts = [md5('part1'), md5('part2')];
    const expected = createHash('md5').update(Buffer.concat(parts)).digest('hex');
    expect(multipartEtag(parts.map(md5Etag))).toBe(`"${expected}-2"`);
    expect(multipartEtag(parts.map((p) => p.toString('hex')))).toBe(`"${expected}-2"`);
  });
});
