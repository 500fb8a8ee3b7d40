import { parseCidr } from './ip';
import type { BucketPolicy, PolicyStatement } from './model';
import { parseOperator } from './conditions';

/**
 * Keys whose fixed values make a statement non-public (AWS's "The meaning of public",
 * https://docs.aws.amazon.com/AmazonS3/latest/userguide/access-control-block-public-access.html#access-control-block-public-access-policy-status).
 */
const FIXING_KEYS = new Set(
  [
    'aws:SourceArn', 'aws:SourceVpc', 'aws:SourceVpce', 'aws:SourceOwner', 'aws:SourceAccount', 'aws:PrincipalOrgID',
    'aws:PrincipalAccount', 'aws:PrincipalArn', 'aws:userid', 's3:x-amz-server-side-encryption-aws-kms-key-id',
    's3:DataAccessPointArn', 's3:DataAccessPointAccount',
  ].map((k) => k.toLowerCase()),
);
const POSITIVE = new Set(['StringEquals', 'StringEqualsIgnoreCase', 'StringLike', 'ArnEquals', 'ArnLike']);
const fixed = (v: string) => v !== '' && !v.includes('*') && !v.includes('?');

/** Whether a condition limits a statement to fixed sources: a fixed value of a fixing key, or a source IP block narrower than /8 (IPv4) or /32 (IPv6). */
function fixesSource(s: PolicyStatement): boolean {
  for (const [operator, keys] of Object.entries(s.condition)) {
    const op = parseOperator(operator);
    if (!op || op.ifExists || op.set === 'ForAllValues') continue;
    for (const [key, values] of Object.entries(keys)) {
      const k = key.toLowerCase();
      if (op.base === 'IpAddress' && k === 'aws:sourceip') {
        const narrow = values.every((v) => {
          const c = parseCidr(v);
          return !!c && c.prefix >= (c.bits === 32 ? 8 : 32);
        });
        if (narrow) return true;
      }
      if (POSITIVE.has(op.base) && FIXING_KEYS.has(k) && values.every(fixed)) return true;
    }
  }
  return false;
}

/**
 * Whether a policy is public as S3 computes it for GetBucketPolicyStatus and Public Access Block:
 * some Allow statement grants to everyone (`*`, or through NotPrincipal) without a condition that
 * fixes the source.
 */
export function isPolicyPublic(policy: BucketPolicy | undefined): boolean {
  if (!policy) return false;
  return policy.statements.some(
    (s) => s.effect === 'Allow' && (s.notPrincipal !== undefined || s.principal?.kind === 'everyone') && !fixesSource(s),
  );
}
