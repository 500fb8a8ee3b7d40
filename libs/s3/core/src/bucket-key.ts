/** What the version store needs of a bucket: its id, its name (logs, usage), its versioning and quota. */
export interface BucketKey {
  bucketId: string;
  name: string;
  versioning: string;
  /** The bucket's quota limits (bucket row `quota_bytes`, `quota_objects`); unset: no limit. */
  quotaBytes?: number;
  quotaObjects?: number;
}
