/**
 * The ACL grant model of S3 (https://docs.aws.amazon.com/AmazonS3/latest/userguide/acl-overview.html):
 * a list of (grantee, permission) pairs on a bucket or an object, the canned ACLs as the grant
 * lists they stand for, and what a grant list lets a caller do.
 */

/** The five ACL permissions. */
export type AclPermission = 'READ' | 'WRITE' | 'READ_ACP' | 'WRITE_ACP' | 'FULL_CONTROL';
/** Every permission, in the order S3 lists them. */
export const ACL_PERMISSIONS: readonly AclPermission[] = ['FULL_CONTROL', 'WRITE', 'WRITE_ACP', 'READ', 'READ_ACP'];

/** The predefined groups a grant may name. */
export const ACL_GROUPS = {
  allUsers: 'http://acs.amazonaws.com/groups/global/AllUsers',
  authenticatedUsers: 'http://acs.amazonaws.com/groups/global/AuthenticatedUsers',
  logDelivery: 'http://acs.amazonaws.com/groups/s3/LogDelivery',
} as const;
const GROUP_URIS: ReadonlySet<string> = new Set(Object.values(ACL_GROUPS));

/** Whether `uri` names one of S3's predefined groups. */
export const isAclGroupUri = (uri: string): boolean => GROUP_URIS.has(uri);

/** A grantee: a user by canonical id (with the display name known when granted), or a group by URI. */
export type AclGrantee = { type: 'CanonicalUser'; id: string; displayName?: string } | { type: 'Group'; uri: string };

/** One grant. */
export interface AclGrant {
  grantee: AclGrantee;
  permission: AclPermission;
}

/** A canned ACL (`x-amz-acl`). */
export type CannedAclName = 'private' | 'public-read' | 'public-read-write' | 'authenticated-read' | 'bucket-owner-read' | 'bucket-owner-full-control' | 'log-delivery-write';

/** The canned ACLs S3 accepts, on buckets and objects (`log-delivery-write` only on buckets). */
export const CANNED_ACL_NAMES: readonly CannedAclName[] = ['private', 'public-read', 'public-read-write', 'authenticated-read', 'bucket-owner-read', 'bucket-owner-full-control', 'log-delivery-write'];

/** A user as a grant names it. */
export interface AclUser {
  id: string;
  displayName?: string;
}

const user = (u: AclUser, permission: AclPermission): AclGrant => ({ grantee: { type: 'CanonicalUser', id: u.id, displayName: u.displayName }, permission });
const group = (uri: string, permission: AclPermission): AclGrant => ({ grantee: { type: 'Group', uri }, permission });

/**
 * The grant list a canned ACL stands for (https://docs.aws.amazon.com/AmazonS3/latest/userguide/acl-overview.html#canned-acl):
 * the owner of the resource gets FULL_CONTROL; `bucket-owner-*` add the bucket's owner when it
 * is another user (on a bucket they mean `private`).
 */
export function cannedAclGrants(canned: string, owner: AclUser, bucketOwner: AclUser = owner): AclGrant[] {
  const grants = [user(owner, 'FULL_CONTROL')];
  const otherBucketOwner = bucketOwner.id !== owner.id;
  switch (canned) {
    case 'public-read':
      grants.push(group(ACL_GROUPS.allUsers, 'READ'));
      break;
    case 'public-read-write':
      grants.push(group(ACL_GROUPS.allUsers, 'READ'), group(ACL_GROUPS.allUsers, 'WRITE'));
      break;
    case 'authenticated-read':
      grants.push(group(ACL_GROUPS.authenticatedUsers, 'READ'));
      break;
    case 'bucket-owner-read':
      if (otherBucketOwner) grants.push(user(bucketOwner, 'READ'));
      break;
    case 'bucket-owner-full-control':
      if (otherBucketOwner) grants.push(user(bucketOwner, 'FULL_CONTROL'));
      break;
    case 'log-delivery-write':
      grants.push(group(ACL_GROUPS.logDelivery, 'WRITE'), group(ACL_GROUPS.logDelivery, 'READ_ACP'));
      break;
  }
  return grants;
}

/** Who asks: the signed-in user's id, or undefined for an anonymous request. */
export interface AclCaller {
  userId: string | undefined;
}

/** How much of a grant list counts: all of it, all but the public grants (IgnorePublicAcls), or none (BucketOwnerEnforced). */
export type AclMode = 'all' | 'non-public' | 'none';

/** Whether a grant names the public: AllUsers or AuthenticatedUsers (https://docs.aws.amazon.com/AmazonS3/latest/userguide/access-control-block-public-access.html#access-control-block-public-access-policy-status). */
export const isPublicGrant = (g: AclGrant): boolean => g.grantee.type === 'Group' && (g.grantee.uri === ACL_GROUPS.allUsers || g.grantee.uri === ACL_GROUPS.authenticatedUsers);

/** Whether a grant list grants anything to the public. */
export const isAclPublic = (grants: readonly AclGrant[]): boolean => grants.some(isPublicGrant);

function granteeMatches(g: AclGrantee, caller: AclCaller): boolean {
  if (g.type === 'CanonicalUser') return caller.userId !== undefined && g.id === caller.userId;
  if (g.uri === ACL_GROUPS.allUsers) return true;
  if (g.uri === ACL_GROUPS.authenticatedUsers) return caller.userId !== undefined;
  return false; // LogDelivery is S3's own log writer; no caller of this store is in it
}

/**
 * Whether a grant list gives the caller `permission` (FULL_CONTROL implies all five), counting
 * only what `mode` lets count.
 */
export function aclGrantsPermission(grants: readonly AclGrant[], permission: AclPermission, caller: AclCaller, mode: AclMode = 'all'): boolean {
  if (mode === 'none') return false;
  return grants.some(
    (g) => (g.permission === permission || g.permission === 'FULL_CONTROL') && !(mode === 'non-public' && isPublicGrant(g)) && granteeMatches(g.grantee, caller),
  );
}

/**
 * Whether a grant list only gives the bucket owner FULL_CONTROL: the form of `bucket-owner-full-control`
 * that a bucket with BucketOwnerEnforced still accepts in an AccessControlPolicy body or grant
 * header ("PUT requests ... that contain ACLs that grant full control to the bucket owner succeed",
 * https://docs.aws.amazon.com/AmazonS3/latest/userguide/about-object-ownership.html).
 */
export function grantsOnlyOwnerFullControl(grants: readonly { grantee: { type: string; id?: string }; permission: AclPermission }[], bucketOwnerId: string): boolean {
  return grants.length > 0 && grants.every((g) => g.permission === 'FULL_CONTROL' && g.grantee.type === 'CanonicalUser' && g.grantee.id === bucketOwnerId);
}
