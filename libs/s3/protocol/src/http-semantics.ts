import { createHash } from 'crypto';
import { S3Error } from './errors';

/** HTTP semantics as S3 applies them: ranges, conditional requests, dates, ETags, URL forms. */

export interface ByteRange {
  start: number;
  endInclusive: number;
}

/**
 * The Range header as S3 applies it to an object of `size` bytes: one `bytes=` range
 * (`a-b`, `a-`, `-n`) with the end clamped to the object. An unsatisfiable range (start at or
 * past the end, `-0`, any range of an empty object) is InvalidRange (416). A syntactically
 * invalid header, `b < a`, or several ranges are ignored and the whole object is served: S3 does
 * not do multipart/byteranges, and RFC 9110 lets a server ignore a Range it cannot honour.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | undefined {
  if (header === undefined) return undefined;
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  const unsatisfiable = () =>
    new S3Error('InvalidRange', undefined, {
      extra: { RangeRequested: header, ActualObjectSize: String(size) },
      headers: { 'Content-Range': `bytes */${size}` },
    });
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) throw unsatisfiable();
    return { start: Math.max(0, size - suffix), endInclusive: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Number(m[2]);
  if (m[2] !== '' && end < start) return undefined;
  if (start >= size) throw unsatisfiable();
  return { start, endInclusive: Math.min(end, size - 1) };
}

/** The Content-Range value of a 206 answer: `bytes a-b/size`. */
export function contentRange(range: ByteRange, size: number): string {
  return `bytes ${range.start}-${range.endInclusive}/${size}`;
}

export interface Preconditions {
  ifMatch?: string;
  ifNoneMatch?: string;
  ifModifiedSince?: string;
  ifUnmodifiedSince?: string;
}

export type PreconditionOutcome = 'proceed' | 'not-modified' | 'failed';

/** Reads the four conditional headers; `prefix` is `x-amz-copy-source-` for a copy source. */
export function preconditionsFromHeaders(
  header: (name: string) => string | undefined,
  prefix: '' | 'x-amz-copy-source-' = '',
): Preconditions {
  return {
    ifMatch: header(`${prefix}if-match`),
    ifNoneMatch: header(`${prefix}if-none-match`),
    ifModifiedSince: header(`${prefix}if-modified-since`),
    ifUnmodifiedSince: header(`${prefix}if-unmodified-since`),
  };
}

/** Whether an If-Match / If-None-Match list (`*`, comma-separated, quoted or not, weak or not) names `etag`. */
export function etagMatches(header: string, etag: string): boolean {
  const want = unquoteEtag(etag);
  return header
    .split(',')
    .some((t) => t.trim() === '*' || unquoteEtag(t.trim().replace(/^W\//, '')) === want);
}

/**
 * GET/HEAD conditionals with S3's precedence (RFC 7232 §6): If-Match decides and
 * If-Unmodified-Since is then ignored (If-Match true + If-Unmodified-Since false → proceed);
 * If-None-Match decides over If-Modified-Since (If-None-Match false + If-Modified-Since true →
 * 304). HTTP dates have one-second precision, so times compare in whole seconds; an unparsable
 * date is ignored, as RFC 9110 requires.
 */
export function evaluatePreconditions(
  p: Preconditions,
  object: { etag: string; lastModified: Date },
): PreconditionOutcome {
  const modified = Math.floor(object.lastModified.getTime() / 1000);
  if (p.ifMatch !== undefined) {
    if (!etagMatches(p.ifMatch, object.etag)) return 'failed';
  } else {
    const since = parseHttpDateSeconds(p.ifUnmodifiedSince);
    if (since !== undefined && modified > since) return 'failed';
  }
  if (p.ifNoneMatch !== undefined) {
    if (etagMatches(p.ifNoneMatch, object.etag)) return 'not-modified';
  } else {
    const since = parseHttpDateSeconds(p.ifModifiedSince);
    if (since !== undefined && modified <= since) return 'not-modified';
  }
  return 'proceed';
}

/**
 * x-amz-copy-source-if-*: the same precedence, but every unmet condition is 412
 * PreconditionFailed (if-none-match false + if-modified-since true → 412).
 */
export function evaluateCopySourcePreconditions(
  p: Preconditions,
  object: { etag: string; lastModified: Date },
): 'proceed' | 'failed' {
  return evaluatePreconditions(p, object) === 'proceed' ? 'proceed' : 'failed';
}

function parseHttpDateSeconds(value: string | undefined): number | undefined {
  const date = parseHttpDate(value);
  return date === undefined ? undefined : Math.floor(date.getTime() / 1000);
}

/** An HTTP date (IMF-fixdate, RFC 850, asctime; also ISO 8601 as S3 tolerates); undefined if unparsable. */
export function parseHttpDate(value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value.trim());
  return Number.isNaN(ms) ? undefined : new Date(ms);
}

/** RFC 7231 IMF-fixdate for headers (Last-Modified, Date): `Sun, 06 Nov 1994 08:49:37 GMT`. */
export function httpDate(d: Date): string {
  return d.toUTCString();
}

/** ISO 8601 with milliseconds, as S3 writes times in XML: `2009-10-12T17:50:30.000Z`. */
export function isoDate(d: Date): string {
  return d.toISOString();
}

/**
 * encoding-type=url as S3 emits it: form encoding of the UTF-8 bytes (space as `+`, Java
 * URLEncoder's safe set `A-Za-z0-9.-*_`) except that `/` is kept. Clients decode with
 * unquote_plus (botocore) — decodeURIComponent alone would leave `+` for spaces.
 */
export function s3UrlEncode(value: string): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const ch = String.fromCharCode(byte);
    if (/[A-Za-z0-9.\-*_/]/.test(ch)) out += ch;
    else if (ch === ' ') out += '+';
    else out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

export interface CopySource {
  bucket: string;
  key: string;
  versionId?: string;
}

/**
 * x-amz-copy-source: `[/]bucket/key[?versionId=id]`, the path URL-encoded (a `+` stays a plus:
 * this is a path, not a form). The query is split off before decoding, so an encoded `%3F` in a
 * key is part of the key.
 */
export function parseCopySource(header: string): CopySource {
  const invalid = () =>
    new S3Error(
      'InvalidArgument',
      'Copy Source must mention the source bucket and key: sourcebucket/sourcekey',
      {
        extra: { ArgumentName: 'x-amz-copy-source', ArgumentValue: header },
      },
    );
  let raw = header.trim();
  let versionId: string | undefined;
  const q = raw.indexOf('?');
  if (q >= 0) {
    const params = new URLSearchParams(raw.slice(q + 1));
    versionId = params.get('versionId') ?? undefined;
    if (versionId === '') {
      throw new S3Error('InvalidArgument', 'Version id cannot be the empty string', {
        extra: { ArgumentName: 'versionId', ArgumentValue: '' },
      });
    }
    raw = raw.slice(0, q);
  }
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    throw invalid();
  }
  if (decoded.startsWith('/')) decoded = decoded.slice(1);
  const slash = decoded.indexOf('/');
  if (slash <= 0 || slash === decoded.length - 1) throw invalid();
  return {
    bucket: decoded.slice(0, slash),
    key: decoded.slice(slash + 1),
    ...(versionId !== undefined && { versionId }),
  };
}

/** `"hex"`; an already quoted value is left as is. */
export function quoteEtag(etag: string): string {
  return /^".*"$/s.test(etag) ? etag : `"${etag}"`;
}

/** The ETag without its quotes. */
export function unquoteEtag(etag: string): string {
  return etag.replace(/^"(.*)"$/s, '$1');
}

/** ETag of a single-part object: its MD5 in hex, quoted. */
export function md5Etag(md5: Buffer): string {
  return `"${md5.toString('hex')}"`;
}

/**
 * ETag of a multipart object: MD5 of the concatenated binary part MD5s, `-<part count>`,
 * quoted. Takes the parts' ETags (quoted or not) in part-number order.
 */
export function multipartEtag(partEtags: string[]): string {
  const hash = createHash('md5');
  for (const etag of partEtags) hash.update(Buffer.from(unquoteEtag(etag), 'hex'));
  return `"${hash.digest('hex')}-${partEtags.length}"`;
}
