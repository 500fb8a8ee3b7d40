import type { BucketPolicy } from './model';
import { parseBucketPolicy } from './parse-policy';

const parsed = new Map<string, BucketPolicy>();

/**
 * The policy a bucket stores (the document PutBucketPolicy accepted), parsed once per process
 * and document: the access check reads it on every request of a bucket that has one. Cached per
 * bucket name with its document, so a hit costs one lookup by the short name and one comparison.
 */
export function storedBucketPolicy(document: string, bucket: string): BucketPolicy {
  let policy = parsed.get(bucket);
  if (!policy || policy.document !== document) {
    policy = parseBucketPolicy(document, bucket, { stored: true });
    if (parsed.size >= 10_000) parsed.clear();
    parsed.set(bucket, policy);
  }
  return policy;
}

/** Whether a policy tests a key whose value needs the object's tags (s3:ExistingObjectTag/<key>). */
export function needsExistingObjectTags(policy: BucketPolicy): boolean {
  return policy.statements.some((s) => Object.values(s.condition).some((keys) => Object.keys(keys).some((k) => k.toLowerCase().startsWith('s3:existingobjecttag/'))));
}

/** A bucket's Public Access Block: the four switches of PutPublicAccessBlock. */
export interface PublicAccessBlock {
  blockPublicAcls: boolean;
  ignorePublicAcls: boolean;
  blockPublicPolicy: boolean;
  restrictPublicBuckets: boolean;
}

/** The stored form of a Public Access Block (JSON with a version), the one format its readers and writers use. */
export function encodePublicAccessBlock(pab: PublicAccessBlock): string {
  return JSON.stringify({ v: 1, ...pab });
}

/** Reads a stored Public Access Block; undefined when none is stored. */
export function decodePublicAccessBlock(stored: string | undefined): PublicAccessBlock | undefined {
  if (!stored) return undefined;
  const j = JSON.parse(stored) as Record<string, unknown>;
  if (j['v'] !== 1) throw new Error(`unknown stored Public Access Block version ${String(j['v'])}`);
  return {
    blockPublicAcls: j['blockPublicAcls'] === true,
    ignorePublicAcls: j['ignorePublicAcls'] === true,
    blockPublicPolicy: j['blockPublicPolicy'] === true,
    restrictPublicBuckets: j['restrictPublicBuckets'] === true,
  };
}

/** The Object Ownership settings of a bucket (stored as the name). */
export const OBJECT_OWNERSHIPS = ['BucketOwnerEnforced', 'BucketOwnerPreferred', 'ObjectWriter'] as const;
/** One Object Ownership setting. */
export type ObjectOwnership = (typeof OBJECT_OWNERSHIPS)[number];

/** Whether a string is an Object Ownership setting. */
export function isObjectOwnership(value: string | undefined): value is ObjectOwnership {
  return (OBJECT_OWNERSHIPS as readonly (string | undefined)[]).includes(value);
}
