import type { HttpHeaders } from './headers';

/** The request, result and option shapes of Signature Version 4 (see ./sigv4.ts), and its constants. */

/** What the verifier needs of an HTTP request. */
export interface SigV4Request {
  method: string;
  /** The path exactly as sent, still percent-encoded, without the query string. */
  rawPath: string;
  /** Decoded query pairs in order (see {@link parseQueryString}). */
  query: [string, string][];
  /** Lower-case names. Pass repeated headers as arrays to get AWS's `a,b` joining. */
  headers: HttpHeaders;
  /**
   * Headers sent on more than one line, each line's value as sent. Node joins them with ", " in
   * `headers`, while a signature joins them with "," (the AWS SDK for Go sends a list header such
   * as x-amz-object-attributes one line per value): the canonical forms read these instead.
   */
  repeatedHeaders?: Record<string, string[]>;
}

export const SIGV4_ALGORITHM = 'AWS4-HMAC-SHA256';
export const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';
export const STREAMING_SIGNED_PAYLOAD = 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD';
export const STREAMING_SIGNED_PAYLOAD_TRAILER = 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER';
export const STREAMING_UNSIGNED_PAYLOAD_TRAILER = 'STREAMING-UNSIGNED-PAYLOAD-TRAILER';
export const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
/** Longest validity of a presigned URL: one week. */
export const MAX_PRESIGNED_EXPIRES_SECONDS = 604_800;
export const DEFAULT_MAX_SKEW_MS = 15 * 60 * 1000;

export interface ParsedSigV4 {
  kind: 'header' | 'query';
  accessKeyId: string;
  /** `yyyymmdd` of the credential scope. */
  date: string;
  region: string;
  service: string;
  signedHeaders: string[];
  signature: string;
  /** The request time as signed, `yyyymmddThhmmssZ`. */
  amzDate: string;
  requestTime: Date;
  /** X-Amz-Expires of a presigned request. */
  expiresSeconds?: number;
  /** The payload hash that was signed: a hex SHA-256, `UNSIGNED-PAYLOAD` or a `STREAMING-*` marker. */
  payloadHash: string;
  /** X-Amz-Security-Token (temporary credentials), if sent. */
  securityToken?: string;
}

export interface SigV4Verified {
  /** kSigning, which also signs the chunks of a streaming upload. */
  signingKey: Buffer;
  /** The request signature: the first "previous signature" of a chunk chain. */
  seedSignature: string;
  /** `yyyymmdd/region/s3/aws4_request`. */
  scope: string;
  amzDate: string;
}

export interface VerifySigV4Options {
  /** Largest accepted distance between the request time and `now`; 15 minutes as AWS. */
  maxSkewMs?: number;
  /** When set, a credential scoped to another region is rejected, as AWS does. */
  region?: string;
}
