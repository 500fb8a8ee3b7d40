import type { S3Request } from './s3-request';

/**
 * Who may call an operation:
 * - `authenticated`: any signed-in user (ListBuckets, CreateBucket);
 * - `bucket-owner`: only the bucket's owner (bucket configuration);
 * - `bucket-read`: the owner, or anyone the bucket's ACL grants READ (listings, HeadBucket);
 * - `bucket-write`: the owner, or anyone the bucket's ACL grants WRITE (writes of objects);
 * - `bucket-read-acp` / `bucket-write-acp`: the owner, or anyone granted READ_ACP / WRITE_ACP (the bucket's ACL);
 * - `object-read`: the owner, or anyone the object's ACL grants READ (GET/HEAD object);
 * - `object-acp`: the owners, or anyone the object's ACL grants READ_ACP / WRITE_ACP (the object's ACL; decided by the handler).
 */
export type AccessRule = 'authenticated' | 'bucket-owner' | 'bucket-read' | 'bucket-write' | 'bucket-read-acp' | 'bucket-write-acp' | 'object-read' | 'object-acp';

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
