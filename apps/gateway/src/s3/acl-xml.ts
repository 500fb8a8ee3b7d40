import { parseXmlBody, toXml, xmlChildren, xmlLeaf, XmlElement, XmlObject } from '@ostore/s3/protocol';
import { AclError, AclGrant, groupGrantee, parseAclPermission, RequestedGrant, RequestedGrantee } from '@ostore/s3/policy';
import type { Owner } from '@ostore/s3/core';

const XSI = 'http://www.w3.org/2001/XMLSchema-instance';

function granteeXml(g: AclGrant['grantee']): XmlObject {
  if (g.type === 'Group') return { '@xmlns:xsi': XSI, '@xsi:type': 'Group', URI: g.uri };
  return { '@xmlns:xsi': XSI, '@xsi:type': 'CanonicalUser', ID: g.id, ...(g.displayName !== undefined ? { DisplayName: g.displayName } : {}) };
}

/**
 * The grants in the order GetBucketAcl / GetObjectAcl list them: group grants first, then user
 * grants, each kind in the order granted. AWS documents no order; this is the order Ceph RGW
 * answers in, which clients written against it (ceph/s3-tests' `check_grants`, and any that read
 * `Grants[n]`) rely on.
 */
export function listedGrantOrder(grants: readonly AclGrant[]): AclGrant[] {
  return [...grants.filter((g) => g.grantee.type === 'Group'), ...grants.filter((g) => g.grantee.type !== 'Group')];
}

/** The AccessControlPolicy document of GetBucketAcl / GetObjectAcl: the owner (id and display name) and every grant. */
export function aclPolicyXml(owner: Owner, grants: readonly AclGrant[]): string {
  return toXml('AccessControlPolicy', {
    Owner: { ID: owner.id, DisplayName: owner.displayName },
    AccessControlList: { Grant: listedGrantOrder(grants).map((g) => ({ Grantee: granteeXml(g.grantee), Permission: g.permission })) },
  });
}

/** What a PutBucketAcl / PutObjectAcl body says: the owner id it names and its grants (grantees unresolved). */
export interface AclDocument {
  ownerId?: string;
  grants: RequestedGrant[];
}

const malformed = () => new AclError('MalformedACLError', 'The XML you provided was not well-formed or did not validate against our published schema');

/**
 * Reads an AccessControlPolicy document (https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutBucketAcl.html).
 * The grantee's kind is read from what it holds (ID, EmailAddress or URI; the xsi:type attribute
 * says the same). Not XML, another root, a grant without grantee or permission: MalformedACLError.
 */
export function parseAclXml(body: string): AclDocument {
  let root: XmlElement;
  try {
    root = parseXmlBody(body, 'AccessControlPolicy');
  } catch {
    throw malformed();
  }
  const owner = xmlChildren(root, 'Owner')[0];
  const lists = xmlChildren(root, 'AccessControlList');
  if (lists.length > 1) throw malformed();
  const grants = (lists[0] ? xmlChildren(lists[0], 'Grant') : []).map((grant): RequestedGrant => {
    const grantee = xmlChildren(grant, 'Grantee')[0];
    const permission = xmlLeaf(grant, 'Permission');
    if (!grantee || permission === undefined) throw malformed();
    return { grantee: parseGrantee(grantee), permission: parseAclPermission(permission.trim()) };
  });
  return { ownerId: owner ? xmlLeaf(owner, 'ID')?.trim() : undefined, grants };
}

function parseGrantee(el: XmlElement): RequestedGrantee {
  const id = xmlLeaf(el, 'ID');
  if (id !== undefined) return { type: 'CanonicalUser', id: id.trim() };
  const email = xmlLeaf(el, 'EmailAddress');
  if (email !== undefined) return { type: 'Email', email: email.trim() };
  const uri = xmlLeaf(el, 'URI');
  if (uri !== undefined) return groupGrantee(uri.trim());
  throw malformed();
}
