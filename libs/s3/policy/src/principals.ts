import { MalformedPolicyError } from './errors';
import type { PrincipalSet } from './model';

const INVALID_PRINCIPAL = 'Invalid principal in policy';
const USER_ID = /^[A-Za-z0-9._@+=,:-]{1,128}$/;

/**
 * The project's users as AWS-style principals. Every user is its own account (its id is the
 * canonical id that owns buckets), so a user is named in a policy by any of:
 * `arn:aws:iam::<id>:root`, `arn:aws:iam::<any account>:user/<id>`, the bare `<id>` (as AWS takes a
 * bare account id) or `{"CanonicalUser": "<id>"}`. The request context describes the caller the
 * same way: aws:userid = `<id>`, aws:PrincipalArn = {@link principalArnOf}.
 */
export function principalArnOf(userId: string): string {
  return `arn:aws:iam::${userId}:root`;
}

function awsPrincipalId(entry: string): string | undefined {
  const root = /^arn:aws:iam::([^:]+):root$/.exec(entry);
  if (root) return root[1];
  const user = /^arn:aws:iam::[^:]*:user\/(?:.*\/)?([^/]+)$/.exec(entry);
  if (user) return user[1];
  if (entry.startsWith('arn:')) return undefined;
  return USER_ID.test(entry) ? entry : undefined;
}

const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : [v]);

/** Parses a Principal / NotPrincipal element; MalformedPolicyError "Invalid principal in policy" when it is not one. */
export function parsePrincipal(value: unknown): PrincipalSet {
  if (value === '*') return { kind: 'everyone' };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new MalformedPolicyError(INVALID_PRINCIPAL);
  const ids: string[] = [];
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) throw new MalformedPolicyError(INVALID_PRINCIPAL);
  for (const [type, raw] of entries) {
    const values = list(raw);
    if (values.length === 0 || values.some((v) => typeof v !== 'string' || v === '')) throw new MalformedPolicyError(INVALID_PRINCIPAL);
    for (const v of values as string[]) {
      if (type === 'AWS') {
        if (v === '*') return { kind: 'everyone' };
        const id = awsPrincipalId(v);
        if (id === undefined) throw new MalformedPolicyError(INVALID_PRINCIPAL);
        ids.push(id);
      } else if (type === 'CanonicalUser') {
        if (!USER_ID.test(v)) throw new MalformedPolicyError(INVALID_PRINCIPAL);
        ids.push(v);
      } else if (type !== 'Service' && type !== 'Federated') {
        throw new MalformedPolicyError(INVALID_PRINCIPAL);
      }
      // Service and Federated principals are valid but never the caller of this gateway
    }
  }
  return { kind: 'users', ids };
}

/** Whether a principal set names the caller (undefined: anonymous, named only by `*`). */
export function principalMatches(set: PrincipalSet, userId: string | undefined): boolean {
  return set.kind === 'everyone' || (userId !== undefined && set.ids.includes(userId));
}
