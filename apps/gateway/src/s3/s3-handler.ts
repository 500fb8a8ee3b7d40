import type { S3Request } from './s3-request';

/**
 * Who may call an operation:
 * - `authenticated`: any signed-in user (ListBuckets, CreateBucket);
 * - `bucket-owner`: only the bucket's owner (bucket configuration);
 * - `bucket-read`: the owner, or anyone the bucket's canned ACL lets read (listings, HeadBucket);
 * - `bucket-write`: the owner, or anyone when the bucket is public-read-write (writes of objects);
 * - `object-read`: the owner, or anyone the object's canned ACL lets read (GET/HEAD object).
 */
export type AccessRule = 'authenticated' | 'bucket-owner' | 'bucket-read' | 'bucket-write' | 'object-read';

/** One S3 operation (one file each, named after the operation). */
export interface S3Handler {
  readonly operation: string;
  readonly access: AccessRule;
  /**
   * For operations authenticated by their body (POST object's signed policy): run after the
   * header/query authentication and before the access check, it sets `req.principal`.
   */
  authenticate?(req: S3Request): Promise<void>;
  handle(req: S3Request): Promise<void>;
}

export const S3_HANDLERS = Symbol('S3_HANDLERS');
