import { createHmac, timingSafeEqual } from 'crypto';
import { S3Error } from './errors';
import { headerValue } from './headers';
import { signedValueOf } from './sigv4-signing';
import type { SigV4Request } from './sigv4-types';
import { signedHeaderText } from './header-text';

/**
 * AWS Signature Version 2 for S3 (the "Signing and Authenticating REST Requests" rules): the
 * `Authorization: AWS AKID:signature` header and the presigned query (`AWSAccessKeyId`,
 * `Signature`, `Expires`), HMAC-SHA1 over
 * `VERB \n Content-MD5 \n Content-Type \n Date|Expires \n CanonicalizedAmzHeaders CanonicalizedResource`.
 * https://docs.aws.amazon.com/AmazonS3/latest/userguide/RESTAuthentication.html
 */

/** A request signed with Signature Version 2, as found in its header or query. */
export interface ParsedSigV2 {
  kind: 'header' | 'query';
  accessKeyId: string;
  /** Base64 HMAC-SHA1 as sent. */
  signature: string;
  /** Presigned: the expiry, seconds since the epoch. */
  expires?: number;
}

/** What the V2 string-to-sign needs beyond the request: the bucket, when addressed virtual-host style. */
export interface SigV2Resource {
  /** The bucket named in the Host header (virtual-host style), else undefined: the path names it. */
  virtualHostBucket?: string;
}

/** How far a V2 Date / x-amz-date may be from the server's clock (S3: 15 minutes). */
export const SIGV2_MAX_SKEW_MS = 15 * 60 * 1000;

/**
 * The query parameters that belong to the CanonicalizedResource: S3's sub-resources and the
 * response-header overrides (the list botocore and boto sign).
 */
const SUB_RESOURCES = new Set([
  'accelerate', 'acl', 'analytics', 'attributes', 'cors', 'delete', 'encryption', 'intelligent-tiering', 'inventory',
  'legal-hold', 'lifecycle', 'location', 'logging', 'metrics', 'notification', 'object-lock', 'ownershipControls',
  'partNumber', 'policy', 'policyStatus', 'publicAccessBlock', 'replication', 'requestPayment', 'restore', 'retention',
  'select', 'select-type', 'tagging', 'torrent', 'uploadId', 'uploads', 'versionId', 'versioning', 'versions', 'website',
  'response-cache-control', 'response-content-disposition', 'response-content-encoding', 'response-content-language',
  'response-content-type', 'response-expires',
]);

/**
 * Finds a Signature Version 2 authentication of a request; undefined when it carries none (it may
 * still be SigV4 or anonymous). A V2 header that is not `AWS AKID:signature` is InvalidArgument,
 * as S3 answers.
 */
export function parseSigV2(req: SigV4Request): ParsedSigV2 | undefined {
  const authorization = headerValue(req.headers, 'authorization');
  if (authorization !== undefined) {
    if (!/^AWS\s/.test(authorization.trim())) return undefined;
    const m = /^AWS\s+([^:\s]+):(\S+)\s*$/.exec(authorization.trim());
    if (!m) {
      throw new S3Error('InvalidArgument', 'AWS authorization header is invalid.  Expected AwsAccessKeyId:signature', {
        extra: { ArgumentName: 'Authorization', ArgumentValue: authorization },
      });
    }
    return { kind: 'header', accessKeyId: m[1], signature: m[2] };
  }
  const q = new Map(req.query);
  if (!q.has('AWSAccessKeyId') && !(q.has('Signature') && q.has('Expires'))) return undefined;
  const accessKeyId = q.get('AWSAccessKeyId');
  const signature = q.get('Signature');
  const expires = q.get('Expires');
  if (!accessKeyId || !signature || expires === undefined) {
    throw new S3Error('AccessDenied', 'Query-string authentication requires the Signature, Expires and AWSAccessKeyId parameters');
  }
  if (!/^\d+$/.test(expires)) throw new S3Error('AccessDenied', 'Invalid date (should be seconds since epoch): ' + expires);
  return { kind: 'query', accessKeyId, signature, expires: Number(expires) };
}

/** S3's `CanonicalizedResource`: `/bucket` + the path as sent + the sorted sub-resources (decoded values). */
export function canonicalizedResourceV2(req: SigV4Request, resource: SigV2Resource): string {
  let out = resource.virtualHostBucket !== undefined ? `/${resource.virtualHostBucket}${req.rawPath}` : req.rawPath;
  const subs = req.query.filter(([k]) => SUB_RESOURCES.has(k)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (subs.length > 0) out += '?' + subs.map(([k, v]) => (v === '' ? k : `${k}=${v}`)).join('&');
  return out;
}

/** S3's `CanonicalizedAmzHeaders`: `x-amz-*` lower-cased, sorted, values unfolded and comma-joined. */
export function canonicalizedAmzHeadersV2(req: SigV4Request): string {
  const names = Object.keys(req.headers)
    .map((n) => n.toLowerCase())
    .filter((n) => n.startsWith('x-amz-') && req.headers[n] !== undefined)
    .sort();
  return names
    .map((n) => {
      const raw = signedValueOf(req, n)!;
      const values = (Array.isArray(raw) ? raw : [raw]).map((v) => signedHeaderText(v).replace(/\s*\r?\n\s*/g, ' ').trim());
      return `${n}:${values.join(',')}\n`;
    })
    .join('');
}

/** The V2 string-to-sign of a request (header form: the Date header, or '' when x-amz-date is sent; query form: Expires). */
export function stringToSignV2(req: SigV4Request, resource: SigV2Resource, expires?: number): string {
  const h = (name: string) => headerValue(req.headers, name)?.trim() ?? '';
  const date = expires !== undefined ? String(expires) : headerValue(req.headers, 'x-amz-date') !== undefined ? '' : h('date');
  return `${req.method}\n${h('content-md5')}\n${h('content-type')}\n${date}\n${canonicalizedAmzHeadersV2(req)}${canonicalizedResourceV2(req, resource)}`;
}

/** Base64 HMAC-SHA1 of a string-to-sign (also the signature of a V2 POST policy). */
export function signV2(secretAccessKey: string, stringToSign: string): string {
  return createHmac('sha1', secretAccessKey).update(stringToSign, 'utf8').digest('base64');
}

/** Compares base64 signatures in constant time. */
export function sameSignatureV2(expected: string, provided: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(provided);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Checks the time and the signature of a V2 request. Header form: a valid `x-amz-date` or `Date`
 * within 15 minutes (else AccessDenied for a missing/invalid date, RequestTimeTooSkewed for a
 * skewed one); query form: `Expires` not passed. Then SignatureDoesNotMatch with the
 * string-to-sign, as S3 answers.
 */
export function verifySigV2(
  parsed: ParsedSigV2,
  req: SigV4Request,
  resource: SigV2Resource,
  secretAccessKey: string,
  now: Date,
  maxSkewMs = SIGV2_MAX_SKEW_MS,
): void {
  if (parsed.kind === 'query') {
    if (now.getTime() > parsed.expires! * 1000) {
      throw new S3Error('AccessDenied', 'Request has expired', {
        extra: { Expires: new Date(parsed.expires! * 1000).toISOString(), ServerTime: now.toISOString() },
      });
    }
  } else {
    const sent = headerValue(req.headers, 'x-amz-date') ?? headerValue(req.headers, 'date');
    if (sent === undefined || sent.trim() === '') {
      throw new S3Error('AccessDenied', 'AWS authentication requires a valid Date or x-amz-date header');
    }
    const at = parseHttpDate(sent);
    // a date before the epoch is as invalid as an unparsable one (ceph/s3-tests' before_epoch cases)
    if (at === undefined || at.getTime() < 0) throw new S3Error('AccessDenied', 'AWS authentication requires a valid Date or x-amz-date header');
    if (Math.abs(at.getTime() - now.getTime()) > maxSkewMs) {
      throw new S3Error('RequestTimeTooSkewed', undefined, {
        extra: { RequestTime: sent, ServerTime: now.toISOString(), MaxAllowedSkewMilliseconds: String(maxSkewMs) },
      });
    }
  }
  const stringToSign = stringToSignV2(req, resource, parsed.expires);
  const expected = signV2(secretAccessKey, stringToSign);
  if (!sameSignatureV2(expected, parsed.signature) && !signedWithBucketSlash(parsed, req, resource, secretAccessKey)) {
    throw new S3Error('SignatureDoesNotMatch', undefined, {
      extra: {
        AWSAccessKeyId: parsed.accessKeyId,
        StringToSign: stringToSign,
        SignatureProvided: parsed.signature,
        StringToSignBytes: Array.from(Buffer.from(stringToSign, 'utf8'), (b) => b.toString(16).padStart(2, '0')).join(' '),
      },
    });
  }
}

/**
 * Whether a path-style request for a bucket itself (`/bucket`, no key) was signed over `/bucket/`,
 * the CanonicalizedResource AWS gives a bucket ("/awsexamplebucket1/" for a request that addresses
 * only the bucket, https://docs.aws.amazon.com/AmazonS3/latest/userguide/RESTAuthentication.html)
 * and what botocore's V2 signer sends for CreateBucket, ListObjects and every other bucket request.
 */
function signedWithBucketSlash(parsed: ParsedSigV2, req: SigV4Request, resource: SigV2Resource, secretAccessKey: string): boolean {
  if (resource.virtualHostBucket !== undefined || !/^\/[^/]+$/.test(req.rawPath)) return false;
  const slashed = stringToSignV2({ ...req, rawPath: `${req.rawPath}/` }, resource, parsed.expires);
  return sameSignatureV2(signV2(secretAccessKey, slashed), parsed.signature);
}

/** An HTTP date (RFC 7231 IMF-fixdate, RFC 850 or asctime, as `Date.parse` reads them); undefined when invalid. */
function parseHttpDate(value: string): Date | undefined {
  const v = value.trim();
  // Date.parse also reads bare numbers and ISO strings, which are not HTTP dates
  if (!/^[A-Za-z]{3},? /.test(v) && !/^[A-Za-z]+day, /.test(v)) return undefined;
  const ms = Date.parse(v);
  if (Number.isNaN(ms)) return undefined;
  return new Date(ms);
}
