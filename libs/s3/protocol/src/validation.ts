import { S3Error } from './errors';
import { HttpHeaders, headerValue } from './headers';

/** Validation of names, keys, metadata and numeric parameters, with S3's error codes. */

/**
 * S3's bucket naming rules (general purpose buckets): 3–63 characters of lowercase letters,
 * digits, dots and hyphens; starts and ends with a letter or digit; no `..`, no `.-`/`-.` (each
 * dot-separated label must be a DNS label); not an IPv4 address; none of the reserved prefixes
 * (`xn--`, `sthree-`, `amzn-s3-demo-`) or suffixes (`-s3alias`, `--ol-s3`, `.mrap`, `--x-s3`,
 * `--table-s3`). Returns why a name is invalid, or undefined.
 */
export function bucketNameProblem(name: string): string | undefined {
  if (name.length < 3 || name.length > 63) return 'Bucket name must be between 3 and 63 characters long';
  if (!/^[a-z0-9.-]+$/.test(name))
    return 'Bucket name may only contain lowercase letters, digits, dots and hyphens';
  if (!/^[a-z0-9]/.test(name) || !/[a-z0-9]$/.test(name))
    return 'Bucket name must begin and end with a letter or digit';
  if (name.includes('..')) return 'Bucket name must not contain two adjacent periods';
  if (name.includes('.-') || name.includes('-.'))
    return 'Bucket name must not contain a period next to a hyphen';
  if (/^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name))
    return 'Bucket name must not be formatted as an IP address';
  if (/^(xn--|sthree-|amzn-s3-demo-)/.test(name)) return 'Bucket name must not start with a reserved prefix';
  if (/(-s3alias|--ol-s3|\.mrap|--x-s3|--table-s3)$/.test(name))
    return 'Bucket name must not end with a reserved suffix';
  return undefined;
}

/** Throws InvalidBucketName (with the bucket name, as S3 does) unless the name is valid. */
export function validateBucketName(name: string): void {
  const problem = bucketNameProblem(name);
  if (problem)
    throw new S3Error('InvalidBucketName', undefined, { extra: { BucketName: name, Detail: problem } });
}

export const MAX_KEY_BYTES = 1024;

/** Keys are 1 to 1024 bytes of UTF-8; longer is KeyTooLongError. */
export function validateObjectKey(key: string): void {
  if (key.length === 0) throw new S3Error('InvalidArgument', 'Object key must not be empty');
  const bytes = Buffer.byteLength(key, 'utf8');
  if (bytes > MAX_KEY_BYTES) {
    throw new S3Error('KeyTooLongError', undefined, {
      extra: { Size: String(bytes), MaxSizeAllowed: String(MAX_KEY_BYTES) },
    });
  }
}

export const MAX_USER_METADATA_BYTES = 2048;
const META_PREFIX = 'x-amz-meta-';

/**
 * User metadata from `x-amz-meta-*` headers, keyed by the name after the prefix (lower-case,
 * as HTTP delivers it). Throws MetadataTooLarge over 2 KB, measured as S3 does: the UTF-8 bytes
 * of every name and value.
 */
export function userMetadataFromHeaders(headers: HttpHeaders): Record<string, string> {
  const meta: [string, string][] = [];
  for (const name of Object.keys(headers)) {
    const value = headerValue(headers, name);
    if (value !== undefined && name.startsWith(META_PREFIX))
      meta.push([name.slice(META_PREFIX.length), value]);
  }
  const result = Object.fromEntries(meta);
  validateUserMetadata(result);
  return result;
}

/** MetadataTooLarge when names plus values exceed 2 KB of UTF-8. */
export function validateUserMetadata(meta: Record<string, string>): void {
  let size = 0;
  for (const [name, value] of Object.entries(meta))
    size += Buffer.byteLength(name, 'utf8') + Buffer.byteLength(value, 'utf8');
  if (size > MAX_USER_METADATA_BYTES) {
    throw new S3Error('MetadataTooLarge', undefined, {
      extra: { Size: String(size), MaxSizeAllowed: String(MAX_USER_METADATA_BYTES) },
    });
  }
}

export const STORAGE_CLASSES = [
  'STANDARD',
  'REDUCED_REDUNDANCY',
  'STANDARD_IA',
  'ONEZONE_IA',
  'INTELLIGENT_TIERING',
  'GLACIER',
  'DEEP_ARCHIVE',
  'GLACIER_IR',
  'OUTPOSTS',
  'SNOW',
  'EXPRESS_ONEZONE',
] as const;
export type StorageClass = (typeof STORAGE_CLASSES)[number];

/** x-amz-storage-class: one of S3's classes (case-sensitive, as S3), else InvalidStorageClass. */
export function validateStorageClass(value: string): asserts value is StorageClass {
  if (!(STORAGE_CLASSES as readonly string[]).includes(value)) {
    throw new S3Error('InvalidStorageClass', undefined, { extra: { StorageClassRequested: value } });
  }
}

export const MAX_LIST_KEYS = 1000;

/**
 * max-keys, max-uploads, max-parts: a non-negative integer up to 2^31-1, 1000 when absent or
 * empty, capped at 1000 as S3 does. InvalidArgument otherwise.
 */
export function parseMaxKeys(value: string | undefined, name = 'max-keys'): number {
  if (value === undefined || value === '') return MAX_LIST_KEYS;
  const trimmed = value.trim();
  const n = /^\d{1,10}$/.test(trimmed) ? Number(trimmed) : NaN;
  if (!(n <= 2147483647)) {
    throw new S3Error('InvalidArgument', `Provided ${name} not an integer or within integer range`, {
      extra: { ArgumentName: name, ArgumentValue: value },
    });
  }
  return Math.min(n, MAX_LIST_KEYS);
}

/** partNumber of UploadPart / UploadPartCopy / GetObject: an integer 1–10000, else InvalidArgument. */
export function parsePartNumber(value: string | undefined): number {
  const n = value !== undefined && /^\d{1,5}$/.test(value) ? Number(value) : NaN;
  if (!(n >= 1 && n <= 10000)) {
    throw new S3Error('InvalidArgument', 'Part number must be an integer between 1 and 10000, inclusive', {
      extra: { ArgumentName: 'partNumber', ArgumentValue: value ?? '' },
    });
  }
  return n;
}

/** part-number-marker (ListParts, GetObjectAttributes): a non-negative integer; absent or empty: none. */
export function parsePartNumberMarker(value: string | undefined, name = 'part-number-marker'): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) {
    throw new S3Error('InvalidArgument', `Argument ${name} must be an integer between 0 and 2147483647`, {
      extra: { ArgumentName: name, ArgumentValue: value },
    });
  }
  return n;
}

/** encoding-type of the list operations: only `url` (any case) exists; absent means none. */
export function parseEncodingType(value: string | undefined): 'url' | undefined {
  if (value === undefined) return undefined;
  if (value.toLowerCase() !== 'url') {
    throw new S3Error('InvalidArgument', 'Invalid Encoding Method specified in Request', {
      extra: { ArgumentName: 'encoding-type', ArgumentValue: value },
    });
  }
  return 'url';
}
