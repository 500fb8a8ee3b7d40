import type { Readable } from 'stream';
import type { DeleteOutcome, DeleteResult } from './delete-outcome';

export type { DeleteOutcome, DeleteResult } from './delete-outcome';

/**
 * The S3 object-store service the gateway calls: S3 semantics over the Cassandra metastore and
 * the block store. It throws `S3DomainError`s (code = the S3 error code); only the gateway turns
 * them into HTTP responses. No HTTP types appear here.
 */

export type ChecksumAlgorithm = 'CRC32' | 'CRC32C' | 'CRC64NVME' | 'SHA1' | 'SHA256';
/** How a multipart object's checksum is made from its parts' (x-amz-checksum-type). */
export type ChecksumType = 'COMPOSITE' | 'FULL_OBJECT';
export type Versioning = 'Unversioned' | 'Enabled' | 'Suspended';
/** S3's canned ACLs; `bucket-owner-read` / `bucket-owner-full-control` are for objects (the bucket owner may always read them here). */
export type CannedAcl = 'private' | 'public-read' | 'public-read-write' | 'authenticated-read' | 'bucket-owner-read' | 'bucket-owner-full-control';
/** An ACL as stored in the `acl` columns: a canned ACL's name or an encoded grant list (read and written only through `@ostore/s3/policy`'s stored-acl). */
export type StoredAcl = string;

/** The delete marker an error is about (GET/HEAD of a key or version that is a delete marker). */
export interface DeleteMarkerFacts {
  versionId: string;
  lastModified: Date;
}

/**
 * An S3 error of the core: the S3 error code, a message, `extra` fields for the error body
 * (Key, BucketName, ...) and, when the error is about a delete marker, that marker. No HTTP here:
 * the gateway decides what becomes a status, a header or a body element.
 */
export class S3DomainError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly extra: Record<string, string> = {},
    readonly deleteMarker?: DeleteMarkerFacts,
  ) {
    super(message);
    this.name = 'S3DomainError';
  }
}

export interface Owner {
  id: string;
  displayName: string;
}

export interface Bucket {
  name: string;
  bucketId: string;
  owner: Owner;
  createdAt: Date;
  location: string;
  versioning: Versioning;
  acl: StoredAcl;
  /** The CORS configuration in its stored form (encodeStoredCors of @ostore/s3/protocol); undefined when none. */
  cors?: string;
  /** The bucket policy document (JSON) as stored, when one is set (parsed by `@ostore/s3/policy`). */
  policy?: string;
  /** The Public Access Block configuration as stored (JSON, `@ostore/s3/policy`), when one is set. */
  publicAccessBlock?: string;
  /** Quota limits (unset: none); see the README's quota section. */
  quotaBytes?: number;
  quotaObjects?: number;
  /** The Object Ownership setting, when one is set (none: ObjectWriter, ACLs honoured). */
  objectOwnership?: string;
  /** The default encryption in its stored form (@ostore/s3/crypto), when one is set. */
  encryption?: string;
  /** The lifecycle configuration in its stored form (@ostore/lifecycle/rules' stored-lifecycle), when one is set. */
  lifecycle?: string;
}

/** Access settings of a bucket; null removes one. */
export interface BucketAccessSettings {
  policy?: string | null;
  publicAccessBlock?: string | null;
  objectOwnership?: string | null;
}

/**
 * The bucket an object operation addresses: its name (the service reads the bucket row), or the
 * Bucket the caller already resolved and authorized for this request, handed on and not read
 * again (as CloudServer's standardMetadataValidateBucketAndObj hands its bucket on).
 */
export type BucketRef = string | Bucket;

/** The name of the bucket a BucketRef addresses. */
export const bucketNameOf = (ref: BucketRef): string => (typeof ref === 'string' ? ref : ref.name);

/** Headers stored with a version and returned on GET/HEAD. */
export interface ObjectMeta {
  contentType?: string;
  contentEncoding?: string;
  contentLanguage?: string;
  contentDisposition?: string;
  cacheControl?: string;
  expires?: string;
  /** x-amz-meta-* without the prefix, lower-cased names. */
  userMeta: Record<string, string>;
  storageClass?: string;
  acl?: StoredAcl;
  tags?: Record<string, string>;
  /** How the body is encrypted: the stored record of @ostore/s3/crypto; undefined for a plain body. */
  sse?: string;
}

export interface ObjectVersion {
  bucket: string;
  key: string;
  /** 'null' for the null version. */
  versionId: string;
  isLatest: boolean;
  isDeleteMarker: boolean;
  size: number;
  etag: string; // with quotes, as S3 returns it
  lastModified: Date;
  storageClass: string;
  owner: Owner;
  meta: ObjectMeta;
  checksums: Partial<Record<ChecksumAlgorithm, string>>; // base64
  /** Number of parts for multipart objects (for partNumber GETs), else undefined. */
  partCount?: number;
  /**
   * Internal: the id of the version's manifest (its block list). Filled by `head`; `openBody`
   * reads the blocks through it. Opaque to the gateway.
   */
  manifestId?: string;
  /**
   * Internal: the body of a small object stored inline, when `head` read it with the metadata
   * (then `openBody` serves it without another read). Opaque to the gateway.
   */
  inlineBody?: Buffer;
}

/** Called after the whole body was read, before anything becomes visible; throw to abort (nothing stored). */
export type BodyVerifier = (computed: { md5: Buffer; size: number; checksums: Partial<Record<ChecksumAlgorithm, string>> }) => void | Promise<void>;

export interface PutObjectInput {
  bucket: BucketRef;
  key: string;
  owner: Owner;
  body: Readable;
  /** The body length the client declared, if known: a quota bucket admits it before storing the body. */
  size?: number;
  meta: ObjectMeta;
  /** Checksums to compute while streaming (in addition to MD5). */
  checksumAlgorithms?: ChecksumAlgorithm[];
  verify?: BodyVerifier;
  /** Conditional PUT: `If-None-Match: *` and/or `If-Match: "etag"` (these need a Paxos round). */
  ifNoneMatch?: string;
  ifMatch?: string;
  /** The data key that seals the body (with `meta.sse` its record); the ETag stays the MD5 unless `etag` says otherwise. */
  encryption?: { dataKey: Buffer; etag?: (md5: Buffer) => string };
}

export interface PutObjectResult {
  versionId: string; // 'null' when unversioned/suspended
  etag: string;
  size: number;
  checksums: Partial<Record<ChecksumAlgorithm, string>>;
}

export interface ByteRange {
  start: number;
  endInclusive: number;
}

export interface ListObjectsInput {
  bucket: BucketRef;
  prefix?: string;
  delimiter?: string;
  /** Exclusive lower bound on keys (v1 marker, v2 start-after or the decoded continuation token). */
  after?: string;
  /** `after` is a directory whose keys are all done (a `nextAfterGroup` position): start after all of them. */
  afterGroup?: boolean;
  /**
   * The caller continues from `nextAfter`/`nextAfterGroup` (ListObjectsV2's continuation token).
   * Either way a page may end, even with no key, at the listing's level budget (see
   * S3CoreSettings.listingLevelBudget); without it (v1) `nextAfter` is then a plain marker past
   * the cut directory and `nextMarkerNeeded` is set.
   */
  resumable?: boolean;
  maxKeys: number;
}

export interface ListObjectsResult {
  contents: ObjectVersion[];
  commonPrefixes: string[];
  isTruncated: boolean;
  /** Last key or common prefix returned, to continue after it (or, with `nextAfterGroup`, a directory). */
  nextAfter?: string;
  /** Only for `resumable` listings: `nextAfter` is a directory whose keys are all done (continue with `afterGroup`). */
  nextAfterGroup?: boolean;
  /**
   * Only for listings that are not `resumable`: the page ended at the level budget and `nextAfter`
   * is a marker past a whole directory, which the client must be given (v1's NextMarker, even
   * without a delimiter): its last key, if any, would make the next page climb the same levels.
   */
  nextMarkerNeeded?: boolean;
}

export interface ListVersionsInput {
  bucket: BucketRef;
  prefix?: string;
  delimiter?: string;
  keyMarker?: string;
  versionIdMarker?: string;
  maxKeys: number;
}

export interface ListVersionsResult {
  versions: ObjectVersion[]; // delete markers included, isDeleteMarker set
  commonPrefixes: string[];
  isTruncated: boolean;
  nextKeyMarker?: string;
  nextVersionIdMarker?: string;
}

export interface CopySource {
  bucket: string;
  key: string;
  versionId?: string;
}

export interface Upload {
  bucket: string;
  key: string;
  uploadId: string;
  initiated: Date;
  owner: Owner;
  storageClass: string;
  meta: ObjectMeta;
  checksumAlgorithm?: ChecksumAlgorithm;
  /** Set with `checksumAlgorithm`. */
  checksumType?: ChecksumType;
}

export interface Part {
  partNumber: number;
  etag: string;
  size: number;
  lastModified: Date;
  checksums: Partial<Record<ChecksumAlgorithm, string>>;
}

export interface User {
  id: string;
  displayName: string;
  createdAt: Date;
  disabled: boolean;
}

export interface AccessKey {
  accessKeyId: string;
  secretAccessKey: string;
  userId: string;
  createdAt: Date;
  disabled: boolean;
}

/** A page of ListBuckets: names after `after`, starting with `prefix`, at most `limit`. */
export interface OwnedBucketsPage {
  after?: string;
  prefix?: string;
  limit: number;
}

export interface BucketsService {
  create(input: { name: string; owner: Owner; location: string; acl: StoredAcl }): Promise<Bucket>; // BucketAlreadyExists | BucketAlreadyOwnedByYou
  /**
   * `create` for an owner who may hold at most `maxBuckets` buckets: TooManyBuckets past it. A
   * name that exists already gets `create`'s answer (re-creating one's own bucket at the limit is
   * not refused). Racing creates of one owner are settled after the insert: a create that counts
   * more than `maxBuckets` after its own insert removes its bucket again and is refused, so the
   * owner never ends above the limit (racers may all back off; a retry then succeeds).
   */
  createWithinLimit(input: { name: string; owner: Owner; location: string; acl: StoredAcl }, maxBuckets: number): Promise<Bucket>;
  get(name: string): Promise<Bucket>; // NoSuchBucket
  delete(name: string): Promise<void>; // NoSuchBucket | BucketNotEmpty (objects or versions; uploads in progress are aborted)
  listOwned(ownerId: string): Promise<Bucket[]>;
  /** One page of the owner's buckets in name order; `more` when buckets after the page exist. */
  listOwnedPage(ownerId: string, page: OwnedBucketsPage): Promise<{ buckets: Bucket[]; more: boolean }>;
  /** How many buckets the owner's listing holds (entries of buckets being deleted included). */
  countOwned(ownerId: string): Promise<number>;
  setVersioning(name: string, status: 'Enabled' | 'Suspended'): Promise<void>;
  setAcl(name: string, acl: StoredAcl): Promise<void>;
  getTags(name: string): Promise<Record<string, string>>; // NoSuchTagSet when none
  setTags(name: string, tags: Record<string, string>): Promise<void>;
  deleteTags(name: string): Promise<void>;
  /** The lifecycle configuration as stored (XML text), or NoSuchLifecycleConfiguration. */
  getLifecycle(name: string): Promise<string>;
  setLifecycle(name: string, xml: string): Promise<void>;
  deleteLifecycle(name: string): Promise<void>;
  /** Stores a CORS configuration (its stored form, already validated). */
  setCors(name: string, stored: string): Promise<void>;
  /** Removes the CORS configuration (no error when there is none). */
  deleteCors(name: string): Promise<void>;
  /** Stores (or, with null, removes) the default encryption, in its stored form. */
  setEncryption(name: string, stored: string | null): Promise<void>;
  /** Stores (or, with null, removes) the bucket's policy, Public Access Block and Object Ownership, as given. */
  setAccessSettings(name: string, settings: BucketAccessSettings): Promise<void>;
}

export interface ObjectsService {
  put(input: PutObjectInput): Promise<PutObjectResult>;
  /** The version a GET/HEAD would serve (NoSuchKey; errors about a delete marker carry it in `deleteMarker`). */
  head(bucket: BucketRef, key: string, versionId?: string): Promise<ObjectVersion>;
  /**
   * The byte range of part `partNumber` of a version (a non-multipart object is part 1), for the
   * Content-Range of a `?partNumber=` GET, with the part's checksum of the upload's algorithm when
   * it had one; InvalidPartNumber when there is no such part.
   */
  partRange(version: ObjectVersion, partNumber: number): Promise<ByteRange & { checksum?: string }>;
  /** The parts of a multipart object with their sizes and checksums, in order ([] for an object not built from parts). */
  partSizes(version: ObjectVersion): Promise<{ partNumber: number; size: number; checksum?: string }[]>;
  /** Body bytes of a version (whole, a byte range, or one part of a multipart object). */
  /** The body (or a range or part of it); an encrypted version (`meta.sse`) needs its data key. */
  openBody(version: ObjectVersion, range?: ByteRange, partNumber?: number, dataKey?: Buffer): Promise<Readable>;
  delete(bucket: BucketRef, key: string, owner: Owner, versionId?: string): Promise<DeleteResult>;
  /** DeleteObjects: each key as `delete` would, in the order given (see PartitionDeletes). */
  deleteMany(bucket: BucketRef, owner: Owner, items: readonly { key: string; versionId?: string }[]): Promise<DeleteOutcome[]>;
  /** Shares the source's blocks by reference; metadata COPY or REPLACE; `ifNoneMatch` ('*') / `ifMatch` make it conditional on the destination like PutObject. */
  copy(input: {
    source: CopySource;
    bucket: BucketRef;
    key: string;
    owner: Owner;
    metadataDirective: 'COPY' | 'REPLACE';
    meta: ObjectMeta;
    taggingDirective?: 'COPY' | 'REPLACE';
    ifNoneMatch?: string;
    ifMatch?: string;
  }): Promise<PutObjectResult & { lastModified: Date; sourceVersionId: string }>;
  list(input: ListObjectsInput): Promise<ListObjectsResult>;
  listVersions(input: ListVersionsInput): Promise<ListVersionsResult>;
  getTags(bucket: BucketRef, key: string, versionId?: string): Promise<{ versionId: string; tags: Record<string, string> }>;
  setTags(bucket: BucketRef, key: string, tags: Record<string, string>, versionId?: string): Promise<{ versionId: string }>;
  deleteTags(bucket: BucketRef, key: string, versionId?: string): Promise<{ versionId: string }>;
  setAcl(bucket: BucketRef, key: string, acl: StoredAcl, versionId?: string): Promise<void>;
  /**
   * Replaces the encryption record of every version of a bucket that `rewrap` answers a new one
   * for (a master-key rotation: same data key, wrapped by the new key); the bodies stay as stored.
   */
  rewrapRecords(bucket: BucketRef, rewrap: (sse: string) => string | undefined): Promise<{ versions: number; rewrapped: number }>;
}

/** The data key that seals a part (each part number gets its own key from it, see partDataKey) and the part's ETag. */
export interface PartEncryption {
  dataKey: Buffer;
  /** The part's ETag from its plaintext MD5 (SSE-C: not the MD5); the MD5 when absent. */
  etag?: (md5: Buffer) => string;
}

/**
 * Given the stored encryption record of an upload (`meta.sse` at CreateMultipartUpload, undefined
 * for a plain upload), the part's data key, or undefined for a plain part; throws the caller's
 * error (a missing or different SSE-C key). An encrypted upload's part is never stored plain.
 */
export type PartEncryptionOf = (uploadSse: string | undefined) => PartEncryption | undefined;

/** What UploadPartCopy is asked. */
export interface UploadPartCopyInput {
  bucket: BucketRef;
  key: string;
  uploadId: string;
  partNumber: number;
  source: CopySource;
  range?: ByteRange;
  /** The data key of an encrypted source (its `meta.sse`): the range is opened with it. */
  sourceDataKey?: Buffer;
  /** How the part is sealed, asked with the upload's stored record (see PartEncryptionOf). */
  encryption?: PartEncryptionOf;
}

/** What CompleteMultipartUpload is asked. */
export interface CompleteUploadInput {
  bucket: BucketRef;
  key: string;
  uploadId: string;
  parts: { partNumber: number; etag: string }[];
  ifNoneMatch?: string;
  ifMatch?: string;
  /**
   * x-amz-checksum-* of the whole object as the client computed it (COMPOSITE: of the parts'
   * checksums, `-N` optional; FULL_OBJECT: the CRC of the whole body); BadDigest when it differs,
   * InvalidRequest when the upload has another algorithm or none.
   */
  expectedChecksums?: Partial<Record<ChecksumAlgorithm, string>>;
  /** x-amz-checksum-type of the request: BadDigest when it differs from the upload's. */
  expectedChecksumType?: ChecksumType;
}

export interface MultipartService {
  create(input: {
    bucket: BucketRef;
    key: string;
    owner: Owner;
    meta: ObjectMeta;
    checksumAlgorithm?: ChecksumAlgorithm;
    checksumType?: ChecksumType;
  }): Promise<Upload>;
  uploadPart(input: {
    bucket: BucketRef;
    key: string;
    uploadId: string;
    partNumber: number;
    body: Readable;
    /** The declared body length, if known (quota admission before the body is stored). */
    size?: number;
    checksumAlgorithms?: ChecksumAlgorithm[];
    verify?: BodyVerifier;
    /** How the part is sealed, asked with the upload's stored record (see PartEncryptionOf). */
    encryption?: PartEncryptionOf;
  }): Promise<Part>; // NoSuchUpload
  uploadPartCopy(input: UploadPartCopyInput): Promise<Part>;
  /** CompleteMultipartUpload; `ifNoneMatch` ('*') / `ifMatch` make it conditional like PutObject (PreconditionFailed). */
  complete(input: CompleteUploadInput): Promise<PutObjectResult & { location?: string; sse?: string }>;
  abort(bucket: BucketRef, key: string, uploadId: string): Promise<void>;
  listParts(input: { bucket: BucketRef; key: string; uploadId: string; partNumberMarker?: number; maxParts: number }): Promise<{ upload: Upload; parts: Part[]; isTruncated: boolean; nextPartNumberMarker?: number }>;
  listUploads(input: { bucket: BucketRef; prefix?: string; delimiter?: string; keyMarker?: string; uploadIdMarker?: string; maxUploads: number }): Promise<{
    uploads: Upload[];
    commonPrefixes: string[];
    isTruncated: boolean;
    nextKeyMarker?: string;
    nextUploadIdMarker?: string;
  }>;
}

export interface UsersService {
  createUser(input: { id: string; displayName: string }): Promise<User>; // UserAlreadyExists
  listUsers(): Promise<User[]>;
  getUser(id: string): Promise<User | undefined>;
  setUserDisabled(id: string, disabled: boolean): Promise<void>;
  /** Creates a key pair for the user; generated when not given. */
  createAccessKey(userId: string, given?: { accessKeyId: string; secretAccessKey: string }): Promise<AccessKey>;
  listAccessKeys(userId: string): Promise<Omit<AccessKey, 'secretAccessKey'>[]>;
  setAccessKeyDisabled(accessKeyId: string, disabled: boolean): Promise<void>;
  /** For authentication: the key and its user, if both exist (disabled flags included). */
  findAccessKey(accessKeyId: string): Promise<{ key: AccessKey; user: User } | undefined>;
}

/** Nest injection tokens of the services above (provided by S3CoreModule). */
export const BUCKETS_SERVICE = Symbol('BUCKETS_SERVICE');
export const OBJECTS_SERVICE = Symbol('OBJECTS_SERVICE');
export const MULTIPART_SERVICE = Symbol('MULTIPART_SERVICE');
export const USERS_SERVICE = Symbol('USERS_SERVICE');
