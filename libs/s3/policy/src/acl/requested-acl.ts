import { ACL_PERMISSIONS, AclPermission, isAclGroupUri } from './grants';

/**
 * A grant as a request names it, before the gateway resolves its grantee: by canonical id, by
 * email address, or a group by URI.
 */
export type RequestedGrantee = { type: 'CanonicalUser'; id: string } | { type: 'Email'; email: string } | { type: 'Group'; uri: string };

/** A requested grant. */
export interface RequestedGrant {
  grantee: RequestedGrantee;
  permission: AclPermission;
}

/** The S3 codes an ACL in a request may be refused with. */
export type AclErrorCode = 'InvalidArgument' | 'MalformedACLError' | 'UnresolvableGrantByEmailAddress' | 'InvalidRequest';

/** An ACL refused on PUT; the gateway answers it with `code` and `message` (and `argument` as ArgumentName/ArgumentValue). */
export class AclError extends Error {
  constructor(
    readonly code: AclErrorCode,
    message: string,
    readonly argument?: { name: string; value: string },
  ) {
    super(message);
    this.name = 'AclError';
  }
}

/** The grant headers and the permission each grants. */
export const GRANT_HEADER_PERMISSIONS: Readonly<Record<string, AclPermission>> = {
  'x-amz-grant-read': 'READ',
  'x-amz-grant-write': 'WRITE',
  'x-amz-grant-read-acp': 'READ_ACP',
  'x-amz-grant-write-acp': 'WRITE_ACP',
  'x-amz-grant-full-control': 'FULL_CONTROL',
};

/** A permission name of an AccessControlPolicy document, or MalformedACLError. */
export function parseAclPermission(value: string): AclPermission {
  if (!ACL_PERMISSIONS.includes(value as AclPermission)) throw new AclError('MalformedACLError', 'The XML you provided was not well-formed or did not validate against our published schema');
  return value as AclPermission;
}

/** A group grantee's URI, or InvalidArgument as S3 answers an unknown group. */
export function groupGrantee(uri: string): RequestedGrantee {
  if (!isAclGroupUri(uri)) throw new AclError('InvalidArgument', 'Invalid group uri', { name: 'uri', value: uri });
  return { type: 'Group', uri };
}

const ENTRY = /^\s*(id|emailAddress|uri)\s*=\s*(?:"([^"]*)"|([^,"\s]+))\s*(?:,|$)/i;

/**
 * The grants of `x-amz-grant-*` headers (https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObjectAcl.html):
 * each a comma-separated list of `id="…"`, `emailAddress="…"` or `uri="…"` (quotes optional).
 * Anything else is InvalidArgument. Undefined when no grant header is present.
 */
export function parseGrantHeaders(header: (name: string) => string | undefined): RequestedGrant[] | undefined {
  let found = false;
  const grants: RequestedGrant[] = [];
  for (const [name, permission] of Object.entries(GRANT_HEADER_PERMISSIONS)) {
    const value = header(name);
    if (value === undefined) continue;
    found = true;
    let rest = value.trim();
    if (rest === '') throw new AclError('InvalidArgument', 'Argument format not recognized', { name, value });
    while (rest !== '') {
      const m = ENTRY.exec(rest);
      if (!m) throw new AclError('InvalidArgument', 'Argument format not recognized', { name, value });
      const kind = m[1].toLowerCase();
      const v = m[2] ?? m[3];
      const grantee: RequestedGrantee = kind === 'id' ? { type: 'CanonicalUser', id: v } : kind === 'uri' ? groupGrantee(v) : { type: 'Email', email: v };
      grants.push({ grantee, permission });
      rest = rest.slice(m[0].length).trim();
    }
  }
  return found ? grants : undefined;
}
