/** A bucket's limits; a bucket has a quota when at least one is set. */
export interface QuotaLimits {
  maxBytes?: number;
  maxObjects?: number;
}
