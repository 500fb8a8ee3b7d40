/** A condition block: operator (with any ForAnyValue:/ForAllValues: prefix and IfExists suffix) → key → values. */
export type ConditionBlock = Record<string, Record<string, string[]>>;

/**
 * A principal list as a policy names it: `*` for everyone (anonymous included), or the users it
 * lists, each normalised to the project's user id (the canonical id of an owner).
 */
export type PrincipalSet = { kind: 'everyone' } | { kind: 'users'; ids: string[] };

/** One statement of a bucket policy, normalised (single values as one-element lists). */
export interface PolicyStatement {
  sid?: string;
  effect: 'Allow' | 'Deny';
  principal?: PrincipalSet;
  notPrincipal?: PrincipalSet;
  action?: string[];
  notAction?: string[];
  resource?: string[];
  notResource?: string[];
  condition: ConditionBlock;
}

/** A parsed, validated bucket policy; `document` is the JSON exactly as the owner stored it. */
export interface BucketPolicy {
  version: string;
  id?: string;
  statements: PolicyStatement[];
  document: string;
}

/**
 * What a policy is evaluated against: who asks (undefined: anonymous), the S3 action, the ARN
 * of the resource, and the request context keys (lower-case names, as IAM compares them
 * case-insensitively), each with its values.
 */
export interface PolicyRequest {
  userId?: string;
  action: string;
  resource: string;
  context: Record<string, string[]>;
}

/** What a policy says about a request: an explicit deny, an allow, or nothing (implicit deny). */
export type PolicyDecision = 'Deny' | 'Allow' | 'Implicit';
