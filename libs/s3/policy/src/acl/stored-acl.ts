import { ACL_PERMISSIONS, AclGrant, AclPermission, AclUser, cannedAclGrants } from './grants';

/**
 * The stored form of an ACL: the one module that writes and reads the `acl` column of `buckets`
 * and of `versions`. A canned ACL is stored as its name (as every row written before grant lists
 * existed holds it, so old rows keep reading); any other grant list as versioned JSON,
 * `{"v":1,"g":[{"id":"alice","n":"Alice","p":"READ"},{"u":"http://acs…/AllUsers","p":"READ"}]}`.
 * An absent value is `private`.
 */

interface StoredGrant {
  id?: string;
  n?: string;
  u?: string;
  p: AclPermission;
}

/** The stored form of a grant list set by a request (`encodeCannedAcl` for a canned one). */
export function encodeAclGrants(grants: readonly AclGrant[]): string {
  const g: StoredGrant[] = grants.map(({ grantee, permission: p }) =>
    grantee.type === 'Group' ? { u: grantee.uri, p } : grantee.displayName !== undefined ? { id: grantee.id, n: grantee.displayName, p } : { id: grantee.id, p },
  );
  return JSON.stringify({ v: 1, g });
}

/** The stored form of a canned ACL: its name. */
export const encodeCannedAcl = (canned: string): string => canned;

/**
 * The grant list a stored value stands for. `owner` is the resource's owner (the bucket's, or the
 * object's writer), `bucketOwner` the bucket's (for `bucket-owner-*`). A value that is neither a
 * canned name nor this module's JSON reads as `private`: an unreadable ACL grants nobody anything.
 */
export function decodeAcl(stored: string | undefined, owner: AclUser, bucketOwner: AclUser = owner): AclGrant[] {
  if (!stored || !stored.startsWith('{')) return cannedAclGrants(stored || 'private', owner, bucketOwner);
  let parsed: { v?: unknown; g?: unknown };
  try {
    parsed = JSON.parse(stored) as typeof parsed;
  } catch {
    return cannedAclGrants('private', owner, bucketOwner);
  }
  if (parsed.v !== 1 || !Array.isArray(parsed.g)) return cannedAclGrants('private', owner, bucketOwner);
  const grants: AclGrant[] = [];
  for (const raw of parsed.g as StoredGrant[]) {
    if (!ACL_PERMISSIONS.includes(raw.p)) continue;
    if (typeof raw.u === 'string') grants.push({ grantee: { type: 'Group', uri: raw.u }, permission: raw.p });
    else if (typeof raw.id === 'string') grants.push({ grantee: { type: 'CanonicalUser', id: raw.id, ...(typeof raw.n === 'string' ? { displayName: raw.n } : {}) }, permission: raw.p });
  }
  return grants;
}
