import { toXml, XmlObject } from '@ostore/s3/protocol';
import type { CannedAcl, Owner } from '@ostore/s3/core';

const ALL_USERS = 'http://acs.amazonaws.com/groups/global/AllUsers';
const AUTH_USERS = 'http://acs.amazonaws.com/groups/global/AuthenticatedUsers';

/** The AccessControlPolicy document a canned ACL stands for. */
export function aclPolicyXml(owner: Owner, acl: CannedAcl | undefined): string {
  const grant = (grantee: XmlObject, permission: string): XmlObject => ({ Grantee: grantee, Permission: permission });
  const grants = [grant({ '@xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance', '@xsi:type': 'CanonicalUser', ID: owner.id, DisplayName: owner.displayName }, 'FULL_CONTROL')];
  const group = (uri: string) => ({ '@xmlns:xsi': 'http://www.w3.org/2001/XMLSchema-instance', '@xsi:type': 'Group', URI: uri });
  if (acl === 'public-read' || acl === 'public-read-write') grants.push(grant(group(ALL_USERS), 'READ'));
  if (acl === 'public-read-write') grants.push(grant(group(ALL_USERS), 'WRITE'));
  if (acl === 'authenticated-read') grants.push(grant(group(AUTH_USERS), 'READ'));
  return toXml('AccessControlPolicy', { Owner: { ID: owner.id, DisplayName: owner.displayName }, AccessControlList: { Grant: grants } });
}
