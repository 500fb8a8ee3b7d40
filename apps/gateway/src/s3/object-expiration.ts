import { AWS_TIMING, decodeStoredLifecycle, LifecycleConfiguration, objectExpiration } from '@ostore/lifecycle/rules';
import type { Bucket } from '@ostore/s3/core';
import { httpDate } from '@ostore/s3/protocol';

/** Decoded lifecycle configurations by their stored text: a bucket's rules are parsed once, not on every GET. */
const decoded = new Map<string, LifecycleConfiguration | null>();
const DECODED_MAX = 256;

function rulesOf(stored: string): LifecycleConfiguration | null {
  let config = decoded.get(stored);
  if (config !== undefined) return config;
  try {
    config = decodeStoredLifecycle(stored);
  } catch {
    config = null; // an unreadable configuration expires nothing here; GetBucketLifecycle reports it
  }
  if (decoded.size >= DECODED_MAX) decoded.clear();
  decoded.set(stored, config);
  return config;
}

/** What the header reads of the current version. */
export interface ExpiringObject {
  key: string;
  size: number;
  lastModified: Date;
  tags?: Record<string, string>;
}

/**
 * The `x-amz-expiration` header of PutObject, HeadObject and GetObject: when the bucket's lifecycle
 * expires the current version and by which rule, `expiry-date="Fri, 23 Dec 2012 00:00:00 GMT",
 * rule-id="picture-deletion-rule"` (https://docs.aws.amazon.com/AmazonS3/latest/API/API_HeadObject.html).
 * Days count as AWS counts them (the rule engine's AWS timing); undefined without a matching
 * enabled Expiration rule, and for a noncurrent version (its NoncurrentVersionExpiration is not announced).
 */
export function expirationHeader(bucket: Bucket | undefined, object: ExpiringObject, isLatest = true): string | undefined {
  if (!bucket?.lifecycle || !isLatest) return undefined;
  const rules = rulesOf(bucket.lifecycle);
  const found = rules && objectExpiration(rules, object, AWS_TIMING);
  return found ? `expiry-date="${httpDate(found.expiresAt)}", rule-id="${found.ruleId}"` : undefined;
}
