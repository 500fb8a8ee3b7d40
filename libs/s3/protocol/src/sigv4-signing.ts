import { createHmac, hash, timingSafeEqual } from 'crypto';
import { signedHeaderText } from './header-text';
import type { ParsedSigV4, SigV4Request } from './sigv4-types';

const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

/** Signature Version 4's canonical forms, key derivation, hashes and dates: what a verifier and a signer share. */

/** The value of `name` as a signature's canonical form takes it (see SigV4Request.repeatedHeaders). */
export function signedValueOf(req: SigV4Request, name: string): string | string[] | undefined {
  return req.repeatedHeaders?.[name] ?? req.headers[name];
}

/**
 * The canonical request as S3 computes it. The URI is the path exactly as sent: S3 neither
 * normalizes (`.`/`..`, `//`) nor re-encodes it, unlike other AWS services.
 */
export function buildCanonicalRequest(
  parsed: Pick<ParsedSigV4, 'kind' | 'signedHeaders' | 'payloadHash'>,
  req: SigV4Request,
): string {
  const canonicalHeaders = parsed.signedHeaders
    .map((name) => `${name}:${canonicalHeaderValue(signedValueOf(req, name))}\n`)
    .join('');
  return [
    req.method.toUpperCase(),
    req.rawPath === '' ? '/' : req.rawPath,
    canonicalQueryString(req.query, parsed.kind === 'query'),
    canonicalHeaders,
    parsed.signedHeaders.join(';'),
    parsed.payloadHash,
  ].join('\n');
}

/**
 * Names and values URI-encoded (RFC 3986), sorted by name then value, byte order. For a
 * presigned request X-Amz-Signature is left out: it cannot sign itself.
 */
export function canonicalQueryString(query: [string, string][], presigned: boolean): string {
  return query
    .filter(([name]) => !(presigned && name === 'X-Amz-Signature'))
    .map(([name, value]) => [uriEncode(name), uriEncode(value)] as const)
    .sort(([an, av], [bn, bv]) => (an < bn ? -1 : an > bn ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
}

/** Trimmed, inner whitespace runs collapsed to one space; repeated headers joined by `,`; UTF-8 bytes read as UTF-8 (signedHeaderText). */
function canonicalHeaderValue(value: string | string[] | undefined): string {
  const values = value === undefined ? [''] : Array.isArray(value) ? value : [value];
  return values.map((v) => signedHeaderText(v).trim().replace(/\s+/g, ' ')).join(',');
}

/**
 * RFC 3986 percent-encoding of the UTF-8 bytes: everything but `A-Za-z0-9-_.~`, with upper-case
 * hex. A lone surrogate is encoded as U+FFFD, as Buffer does; it cannot occur in decoded UTF-8.
 */
export function uriEncode(value: string): string {
  if (/^[A-Za-z0-9\-_.~]*$/.test(value)) return value;
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const ch = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-_.~]/.test(ch) ? ch : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * Decodes a raw query string (without `?`) into pairs in order, as the gateway should before
 * calling {@link parseSigV4}: `+` is a space (form encoding, what S3 assumes), a name without
 * `=` has the empty value, and an invalid percent sequence is kept literally rather than rejected.
 */
export function parseQueryString(raw: string): [string, string][] {
  if (raw === '') return [];
  return raw
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => {
      const eq = pair.indexOf('=');
      return eq < 0
        ? [decodeQueryComponent(pair), '']
        : [decodeQueryComponent(pair.slice(0, eq)), decodeQueryComponent(pair.slice(eq + 1))];
    });
}

function decodeQueryComponent(text: string): string {
  const spaced = text.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}

const signingKeys = new Map<string, Buffer>();
const SIGNING_KEY_CACHE_LIMIT = 1024;

/**
 * deriveSigningKey, remembered: the key depends only on (secret, day, region, service), so every
 * request of a client on one day shares it (four HMACs saved per request). Bounded, oldest dropped.
 */
export function cachedSigningKey(
  secretAccessKey: string,
  date: string,
  region: string,
  service: string,
): Buffer {
  const id = `${date}\u0000${region}\u0000${service}\u0000${secretAccessKey}`;
  let key = signingKeys.get(id);
  if (!key) {
    key = deriveSigningKey(secretAccessKey, date, region, service);
    if (signingKeys.size >= SIGNING_KEY_CACHE_LIMIT) signingKeys.delete(signingKeys.keys().next().value!);
    signingKeys.set(id, key);
  }
  return key;
}

/** kSigning = HMAC chain over "AWS4"+secret, date, region, service, "aws4_request". */
export function deriveSigningKey(
  secretAccessKey: string,
  date: string,
  region: string,
  service: string,
): Buffer {
  const kDate = hmacSha256(Buffer.from(`AWS4${secretAccessKey}`, 'utf8'), date);
  const kRegion = hmacSha256(kDate, region);
  const kService = hmacSha256(kRegion, service);
  return hmacSha256(kService, 'aws4_request');
}

export function hmacSha256(key: Buffer, data: string | Buffer): Buffer {
  return createHmac('sha256', key).update(data).digest();
}

/** One-shot SHA-256 (crypto.hash: no Hash object per call), lower-case hex. */
export function sha256Hex(data: string | Buffer): string {
  return hash('sha256', data, 'hex');
}

/** Constant-time comparison of a computed lower-case hex signature with the one provided. */
export function sameSignature(expected: string, provided: string): boolean {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(provided, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** `yyyymmddThhmmssZ` → Date, or undefined when malformed or not a real calendar time. */
export function parseAmzDate(value: string): Date | undefined {
  const m = AMZ_DATE.exec(value);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s] = m.map(Number);
  const date = new Date(Date.UTC(y, mo - 1, d, h, mi, s));
  return date.getUTCMonth() === mo - 1 && date.getUTCDate() === d && h < 24 && mi < 60 && s < 60
    ? date
    : undefined;
}

export function formatAmzDate(date: Date): string {
  return date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}
