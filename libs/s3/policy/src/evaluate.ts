import { conditionHolds } from './conditions';
import type { BucketPolicy, PolicyDecision, PolicyRequest, PolicyStatement } from './model';
import { principalMatches } from './principals';
import { substituteVariables } from './variables';
import { wildcardMatch } from './wildcard';

const actionMatches = (patterns: string[], action: string) => patterns.some((p) => p === '*' || wildcardMatch(p, action, true));
const resourceMatches = (patterns: string[], resource: string, context: PolicyRequest['context']) =>
  patterns.some((p) => {
    if (p === '*') return true;
    const pattern = substituteVariables(p, context);
    return pattern !== undefined && wildcardMatch(pattern, resource);
  });

/** Whether a statement applies to a request: its principal, action, resource and condition all match. */
export function statementApplies(s: PolicyStatement, req: PolicyRequest): boolean {
  if (s.principal && !principalMatches(s.principal, req.userId)) return false;
  if (s.notPrincipal && principalMatches(s.notPrincipal, req.userId)) return false;
  if (s.action && !actionMatches(s.action, req.action)) return false;
  if (s.notAction && actionMatches(s.notAction, req.action)) return false;
  if (s.resource && !resourceMatches(s.resource, req.resource, req.context)) return false;
  if (s.notResource && resourceMatches(s.notResource, req.resource, req.context)) return false;
  return conditionHolds(s.condition, req.context);
}

/**
 * What the policy says about a request, as IAM evaluates it
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html):
 * an explicit Deny in any applicable statement wins; otherwise an applicable Allow allows;
 * otherwise the policy is silent (an implicit deny, which an ACL grant or ownership may lift).
 */
export function evaluatePolicy(policy: BucketPolicy | undefined, req: PolicyRequest): PolicyDecision {
  if (!policy) return 'Implicit';
  let allowed = false;
  for (const s of policy.statements) {
    if (!statementApplies(s, req)) continue;
    if (s.effect === 'Deny') return 'Deny';
    allowed = true;
  }
  return allowed ? 'Allow' : 'Implicit';
}

/** The actions the bucket owner may always perform, whatever its policy denies (AWS's lock-out guard). */
export const OWNER_ONLY_ACTIONS: ReadonlySet<string> = new Set(['s3:GetBucketPolicy', 's3:PutBucketPolicy', 's3:DeleteBucketPolicy']);

/** The facts S3 combines into one access decision for a request on a bucket or an object in it. */
export interface AccessFacts {
  /** The S3 action (see OPERATION_ACTIONS). */
  action: string;
  /** Whether the caller owns the bucket (in this project every user is its own account). */
  isBucketOwner: boolean;
  /** The bucket policy's verdict on the request (Implicit when there is no policy). */
  policy: PolicyDecision;
  /** Whether an ACL (of the bucket, or of the object for object reads) grants the action. */
  aclGrants: boolean;
  /** Public Access Block RestrictPublicBuckets on a bucket whose policy is public: all cross-account access is blocked. */
  restrictPublicPolicy?: boolean;
}

/**
 * S3's decision for a request in the bucket owner's context
 * (https://docs.aws.amazon.com/AmazonS3/latest/userguide/how-s3-evaluates-access-control.html):
 * the owner may always manage the policy; an explicit deny in the policy refuses everyone else
 * and every other action of the owner; then ownership allows; RestrictPublicBuckets on a public
 * policy blocks every other caller (AWS: "blocks all cross-account access"); then a policy allow or
 * an ACL grant allows; nothing else does.
 */
export function decideAccess(f: AccessFacts): boolean {
  if (f.isBucketOwner && OWNER_ONLY_ACTIONS.has(f.action)) return true;
  if (f.policy === 'Deny') return false;
  if (f.isBucketOwner) return true;
  if (f.restrictPublicPolicy) return false;
  return f.policy === 'Allow' || f.aclGrants;
}
