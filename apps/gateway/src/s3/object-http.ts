import { S3Error, httpDate, parseContentMd5, parseTaggingHeader, userMetadataFromHeaders, validateStorageClass } from '@ostore/s3/protocol';
import { checksumTypeOf } from '@ostore/s3/core';
import type { CannedAcl, ChecksumAlgorithm, ObjectMeta, ObjectVersion, Owner, Versioning } from '@ostore/s3/core';
import { expirationHeader } from './object-expiration';
import type { S3Request } from './s3-request';

export const CHECKSUM_ALGORITHMS: ChecksumAlgorithm[] = ['CRC32', 'CRC32C', 'CRC64NVME', 'SHA1', 'SHA256'];
export const CANNED_ACLS: CannedAcl[] = ['private', 'public-read', 'public-read-write', 'authenticated-read', 'bucket-owner-read', 'bucket-owner-full-control'];

/** The canned ACL of `x-amz-acl`, or undefined; anything else is InvalidArgument. */
export function cannedAclOf(req: S3Request): CannedAcl | undefined {
  const acl = req.header('x-amz-acl');
  if (acl === undefined) return undefined;
  if (!CANNED_ACLS.includes(acl as CannedAcl)) throw new S3Error('InvalidArgument', `Invalid canned ACL: ${acl}`, { extra: { ArgumentName: 'x-amz-acl', ArgumentValue: acl } });
  if (Object.keys(req.headers).some((h) => h.startsWith('x-amz-grant-'))) {
    throw new S3Error('InvalidRequest', 'Specifying both Canned ACLs and Header Grants is not allowed');
  }
  return acl as CannedAcl;
}

/**
 * Who owns an object a request writes (https://docs.aws.amazon.com/AmazonS3/latest/userguide/about-object-ownership.html):
 * the bucket owner under BucketOwnerEnforced, and under BucketOwnerPreferred when the writer sends
 * `bucket-owner-full-control`; otherwise the writer (the bucket owner for an anonymous write).
 */
export function objectOwnerOf(req: S3Request): Owner {
  const bucket = req.target;
  const ownership = bucket.objectOwnership;
  if (ownership === 'BucketOwnerEnforced' || (ownership === 'BucketOwnerPreferred' && req.header('x-amz-acl') === 'bucket-owner-full-control')) return bucket.owner;
  return req.owner ?? bucket.owner;
}

/** Object metadata from request headers (PUT, CreateMultipartUpload, CopyObject with REPLACE). */
export function metaFromHeaders(req: S3Request): ObjectMeta {
  const userMeta = userMetadataFromHeaders(req.headers);
  const storageClass = req.header('x-amz-storage-class');
  if (storageClass !== undefined) validateStorageClass(storageClass);
  const tagging = req.header('x-amz-tagging');
  return {
    contentType: req.header('content-type'),
    contentEncoding: stripAwsChunked(req.header('content-encoding')),
    contentLanguage: req.header('content-language'),
    contentDisposition: req.header('content-disposition'),
    cacheControl: req.header('cache-control'),
    expires: req.header('expires'),
    userMeta,
    storageClass: storageClass ?? 'STANDARD',
    acl: req.requestedAcl ?? cannedAclOf(req),
    tags: tagging === undefined ? undefined : parseTaggingHeader(tagging),
  };
}

/**
 * aws-chunked is a transfer detail, not the object's encoding: it is dropped, and the rest is
 * stored as sent (`deflate, gzip` stays `deflate, gzip`).
 */
export function stripAwsChunked(encoding: string | undefined): string | undefined {
  if (encoding === undefined) return undefined;
  const tokens = encoding.split(',').map((e) => e.trim());
  if (!tokens.some((t) => t.toLowerCase() === 'aws-chunked')) return encoding.trim() || undefined;
  const rest = tokens.filter((e) => e && e.toLowerCase() !== 'aws-chunked');
  return rest.length ? rest.join(', ') : undefined;
}

/**
 * The version id a write (PutObject, CopyObject, POST, CompleteMultipartUpload) announces in
 * `x-amz-version-id`: only a bucket with versioning Enabled names the version it created. A write to
 * an unversioned or suspended bucket makes the null version and answers without the header, as the
 * "versioning suspended" examples of AWS's PutObject reference show (ListObjectVersions and reads
 * of that version still call it `null`).
 */
export function writtenVersionId(versioning: Versioning, versionId: string): string | undefined {
  return versioning === 'Enabled' ? versionId : undefined;
}

/** Headers that describe a version on GET and HEAD. */
export function versionHeaders(req: S3Request, v: ObjectVersion, versioned: boolean): Record<string, string | number | undefined> {
  const h: Record<string, string | number | undefined> = {
    ETag: v.etag,
    'Last-Modified': httpDate(v.lastModified),
    'Accept-Ranges': 'bytes',
    'Content-Type': v.meta.contentType ?? 'binary/octet-stream',
    'Content-Encoding': v.meta.contentEncoding,
    'Content-Language': v.meta.contentLanguage,
    'Content-Disposition': v.meta.contentDisposition,
    'Cache-Control': v.meta.cacheControl,
    Expires: v.meta.expires,
    'x-amz-version-id': versioned || v.versionId !== 'null' ? v.versionId : undefined,
    'x-amz-storage-class': v.storageClass && v.storageClass !== 'STANDARD' ? v.storageClass : undefined,
    'x-amz-mp-parts-count': v.partCount,
    'x-amz-tagging-count': v.meta.tags && Object.keys(v.meta.tags).length ? Object.keys(v.meta.tags).length : undefined,
    'x-amz-expiration': expirationHeader(req.bucketInfo, { key: v.key, size: v.size, lastModified: v.lastModified, tags: v.meta.tags }, v.isLatest),
  };
  for (const [k, val] of Object.entries(v.meta.userMeta)) h[`x-amz-meta-${k}`] = val;
  // Whole-object checksums only describe whole-object responses: none for ranges and parts.
  const partial = req.header('range') !== undefined || req.query('partNumber') !== undefined;
  if (checksumModeEnabled(req) && !partial) {
    for (const [alg, val] of Object.entries(v.checksums)) {
      h[`x-amz-checksum-${alg.toLowerCase()}`] = val;
      h['x-amz-checksum-type'] = checksumTypeOf(val);
    }
  }
  return h;
}

/** x-amz-checksum-mode: ENABLED (GET and HEAD answer with the stored checksums only then). */
export function checksumModeEnabled(req: S3Request): boolean {
  return req.header('x-amz-checksum-mode')?.toUpperCase() === 'ENABLED';
}

/**
 * The checksum headers of a `?partNumber=` GET of a multipart object: the part's own checksum (of
 * the upload's algorithm) with the object's checksum type, as S3 answers in checksum mode.
 */
export function partChecksumHeaders(req: S3Request, v: ObjectVersion, partChecksum: string | undefined): Record<string, string> {
  const [entry] = Object.entries(v.checksums);
  if (!checksumModeEnabled(req) || !entry || partChecksum === undefined || !v.partCount) return {};
  return { [`x-amz-checksum-${entry[0].toLowerCase()}`]: partChecksum, 'x-amz-checksum-type': checksumTypeOf(entry[1]) };
}

/** Requested checksum algorithms: from x-amz-checksum-*, x-amz-sdk-checksum-algorithm or x-amz-trailer. */
export function requestedChecksums(req: S3Request): { algorithms: ChecksumAlgorithm[]; fromHeader: Partial<Record<ChecksumAlgorithm, string>>; trailer?: ChecksumAlgorithm } {
  const fromHeader: Partial<Record<ChecksumAlgorithm, string>> = {};
  const algorithms = new Set<ChecksumAlgorithm>();
  for (const alg of CHECKSUM_ALGORITHMS) {
    const v = req.header(`x-amz-checksum-${alg.toLowerCase()}`);
    if (v !== undefined) {
      fromHeader[alg] = v;
      algorithms.add(alg);
    }
  }
  const sdk = (req.header('x-amz-sdk-checksum-algorithm') ?? req.header('x-amz-checksum-algorithm'))?.toUpperCase();
  if (sdk !== undefined) {
    if (!CHECKSUM_ALGORITHMS.includes(sdk as ChecksumAlgorithm)) throw new S3Error('InvalidRequest', `Value for x-amz-sdk-checksum-algorithm header is invalid: ${sdk}`);
    algorithms.add(sdk as ChecksumAlgorithm);
  }
  let trailer: ChecksumAlgorithm | undefined;
  const t = req.header('x-amz-trailer')?.toLowerCase();
  if (t) {
    const alg = CHECKSUM_ALGORITHMS.find((a) => `x-amz-checksum-${a.toLowerCase()}` === t.trim());
    if (!alg) throw new S3Error('InvalidRequest', `The value specified in the x-amz-trailer header is not supported: ${t}`);
    trailer = alg;
    algorithms.add(alg);
  }
  if (Object.keys(fromHeader).length > 1) throw new S3Error('InvalidRequest', 'Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed.');
  return { algorithms: [...algorithms], fromHeader, trailer };
}

/** Content-MD5 as 16 raw bytes, or undefined; malformed → InvalidDigest. */
export function contentMd5Of(req: S3Request): Buffer | undefined {
  const v = req.header('content-md5');
  return v === undefined ? undefined : parseContentMd5(v);
}

/**
 * The body length the client announced: x-amz-decoded-content-length for aws-chunked bodies,
 * else Content-Length. A PUT without one is MissingContentLength, as on S3.
 */
export function announcedLength(req: S3Request): number {
  if (req.decodedLength !== undefined) return req.decodedLength;
  const cl = req.header('content-length');
  if (cl === undefined) {
    if (req.header('transfer-encoding')) throw new S3Error('MissingContentLength', 'You must provide the Content-Length HTTP header.');
    throw new S3Error('MissingContentLength', 'You must provide the Content-Length HTTP header.');
  }
  const n = Number(cl);
  if (!Number.isSafeInteger(n) || n < 0) throw new S3Error('InvalidArgument', 'Content-Length must be a non-negative integer');
  return n;
}

/** A verifier for the core service: size, Content-MD5 and any client checksum (header or trailer) must match before commit. */
export function bodyVerifier(req: S3Request, expectedSize: number, md5: Buffer | undefined, checksums: ReturnType<typeof requestedChecksums>) {
  return (computed: { md5: Buffer; size: number; checksums: Partial<Record<ChecksumAlgorithm, string>> }) => {
    if (computed.size !== expectedSize) {
      throw new S3Error('IncompleteBody', 'You did not provide the number of bytes specified by the Content-Length HTTP header.');
    }
    if (md5 && !md5.equals(computed.md5)) {
      throw new S3Error('BadDigest', 'The Content-MD5 you specified did not match what we received.', {
        extra: { ExpectedDigest: md5.toString('hex'), CalculatedDigest: computed.md5.toString('base64') },
      });
    }
    const expected: Partial<Record<ChecksumAlgorithm, string>> = { ...checksums.fromHeader };
    if (checksums.trailer) {
      const value = req.trailers()[`x-amz-checksum-${checksums.trailer.toLowerCase()}`];
      if (value !== undefined) expected[checksums.trailer] = value;
    }
    for (const [alg, value] of Object.entries(expected)) {
      if (computed.checksums[alg as ChecksumAlgorithm] !== value) {
        throw new S3Error('BadDigest', `The ${alg} you specified did not match the calculated checksum.`);
      }
    }
  };
}
