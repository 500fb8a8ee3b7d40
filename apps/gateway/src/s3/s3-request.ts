import type { IncomingMessage, ServerResponse } from 'http';
import type { Readable } from 'stream';
import type { Bucket, Owner } from '@ostore/s3/core';
import type { AclMode } from '@ostore/s3/policy';

/** Who is asking: an authenticated user, or nobody (anonymous). */
export type Principal = { kind: 'user'; owner: Owner; accessKeyId: string } | { kind: 'anonymous' };

/** One S3 request, parsed once: addressing, query, headers, principal and the (decoded) body. */
export class S3Request {
  /** Set by the authenticator; anonymous until then. */
  principal: Principal = { kind: 'anonymous' };
  /** The payload after any aws-chunked decoding; set by the authenticator. */
  body!: Readable;
  /** Trailing headers of an aws-chunked body, available once `body` has ended. */
  trailers: () => Record<string, string> = () => ({});
  operation = 'Unknown';
  /** x-amz-decoded-content-length of an aws-chunked body. */
  decodedLength?: number;
  /**
   * Set by the access check when the caller may not list the bucket (or the copy source's): an
   * answer telling whether a key exists becomes AccessDenied.
   */
  concealsExistence = false;
  /** Set by the access check when the bucket policy allowed the request: no ACL needs to grant it. */
  accessGranted = false;
  /**
   * Set by the access check: which grants of the bucket's and objects' ACLs count — all, all but
   * the public ones (Public Access Block IgnorePublicAcls or RestrictPublicBuckets), or none
   * (BucketOwnerEnforced).
   */
  aclMode: AclMode = 'all';
  /** The ACL the request's x-amz-acl / x-amz-grant-* headers set, in its stored form (resolved by the access check). */
  requestedAcl?: string;
  /** The addressed bucket, once the access check has loaded it. */
  bucketInfo?: Bucket;
  /** Whether the request's `Expect: 100-continue` has been answered (its body is on its way). */
  continued = false;

  constructor(
    readonly raw: IncomingMessage,
    readonly res: ServerResponse,
    readonly requestId: string,
    readonly method: string,
    /** Path exactly as sent (percent-encoded), without the query string. */
    readonly rawPath: string,
    /** Decoded query pairs in the order sent. */
    readonly queryPairs: [string, string][],
    readonly bucket: string | undefined,
    readonly key: string | undefined,
    readonly addressing: 'path' | 'virtual-host',
  ) {}

  get headers(): IncomingMessage['headers'] {
    return this.raw.headers;
  }

  header(name: string): string | undefined {
    const v = this.raw.headers[name];
    return Array.isArray(v) ? v.join(',') : v;
  }

  has(param: string): boolean {
    return this.queryPairs.some(([k]) => k === param);
  }

  query(param: string): string | undefined {
    return this.queryPairs.find(([k]) => k === param)?.[1];
  }

  /** The resource named in error bodies: /bucket/key. */
  get resource(): string {
    if (!this.bucket) return '/';
    return this.key === undefined ? `/${this.bucket}` : `/${this.bucket}/${this.key}`;
  }

  /**
   * The addressed bucket as the access check resolved and authorized it: read once per request
   * and handed on to the S3 core, which does not read it again.
   */
  get target(): Bucket {
    if (!this.bucketInfo) throw new Error(`${this.operation}: the bucket was not resolved by the access check`);
    return this.bucketInfo;
  }

  get owner(): Owner | undefined {
    return this.principal.kind === 'user' ? this.principal.owner : undefined;
  }
}
