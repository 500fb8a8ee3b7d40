import { ACL_GROUPS, aclGrantsPermission, cannedAclGrants, isAclPublic } from './grants';
import { AclError, parseGrantHeaders } from './requested-acl';
import { decodeAcl, encodeAclGrants } from './stored-acl';

const alice = { id: 'alice', displayName: 'Alice' };
const bob = { id: 'bob', displayName: 'Bob' };

describe('ACL grants', () => {
  describe(cannedAclGrants.name, () => {
    it.each([
      ['private', [['alice', 'FULL_CONTROL']]],
      ['public-read', [['alice', 'FULL_CONTROL'], [ACL_GROUPS.allUsers, 'READ']]],
      ['public-read-write', [['alice', 'FULL_CONTROL'], [ACL_GROUPS.allUsers, 'READ'], [ACL_GROUPS.allUsers, 'WRITE']]],
      ['authenticated-read', [['alice', 'FULL_CONTROL'], [ACL_GROUPS.authenticatedUsers, 'READ']]],
      ['bucket-owner-read', [['alice', 'FULL_CONTROL'], ['bob', 'READ']]],
      ['bucket-owner-full-control', [['alice', 'FULL_CONTROL'], ['bob', 'FULL_CONTROL']]],
      ['log-delivery-write', [['alice', 'FULL_CONTROL'], [ACL_GROUPS.logDelivery, 'WRITE'], [ACL_GROUPS.logDelivery, 'READ_ACP']]],
    ])('%s stands for its AWS grant list (object of alice in a bucket of bob)', (canned, expected) => {
      const grants = cannedAclGrants(canned, alice, bob).map((g) => [g.grantee.type === 'Group' ? g.grantee.uri : g.grantee.id, g.permission]);
      expect(grants).toEqual(expected);
    });

    it('adds no second grant when the object owner owns the bucket', () => {
      expect(cannedAclGrants('bucket-owner-full-control', alice, alice)).toHaveLength(1);
    });
  });

  describe(aclGrantsPermission.name, () => {
    const grants = [...cannedAclGrants('authenticated-read', alice), { grantee: { type: 'CanonicalUser' as const, id: 'bob' }, permission: 'WRITE_ACP' as const }];

    it.each([
      ['alice', 'WRITE', 'all', true], // FULL_CONTROL implies every permission
      ['bob', 'READ', 'all', true], // AuthenticatedUsers
      [undefined, 'READ', 'all', false], // anonymous is not authenticated
      ['bob', 'WRITE_ACP', 'all', true],
      ['bob', 'READ_ACP', 'all', false],
      ['bob', 'READ', 'non-public', false], // IgnorePublicAcls drops the group grant
      ['bob', 'WRITE_ACP', 'non-public', true], // ... not a grant to a user
      ['alice', 'READ', 'none', false], // BucketOwnerEnforced: ACLs grant nothing
    ] as const)('%s asking %s with %s grants counting: %s', (userId, permission, mode, expected) => {
      expect(aclGrantsPermission(grants, permission, { userId }, mode)).toBe(expected);
    });

    it('gives the LogDelivery group nothing a caller of this store could use', () => {
      expect(aclGrantsPermission(cannedAclGrants('log-delivery-write', alice), 'WRITE', { userId: 'bob' })).toBe(false);
    });
  });

  it('calls a grant list public when it names AllUsers or AuthenticatedUsers', () => {
    expect(isAclPublic(cannedAclGrants('public-read', alice))).toBe(true);
    expect(isAclPublic(cannedAclGrants('authenticated-read', alice))).toBe(true);
    expect(isAclPublic(cannedAclGrants('log-delivery-write', alice))).toBe(false);
    expect(isAclPublic(cannedAclGrants('bucket-owner-full-control', alice, bob))).toBe(false);
  });
});

describe('stored ACLs', () => {
  it('reads a canned name (every row written before grant lists) as its grants', () => {
    expect(decodeAcl('public-read', alice)).toEqual(cannedAclGrants('public-read', alice));
    expect(decodeAcl(undefined, alice)).toEqual(cannedAclGrants('private', alice));
  });

  it('round-trips a grant list with display names and groups', () => {
    const grants = [
      { grantee: { type: 'CanonicalUser' as const, id: 'bob', displayName: 'Bob' }, permission: 'READ' as const },
      { grantee: { type: 'CanonicalUser' as const, id: 'carol' }, permission: 'WRITE_ACP' as const },
      { grantee: { type: 'Group' as const, uri: ACL_GROUPS.allUsers }, permission: 'READ_ACP' as const },
    ];
    expect(decodeAcl(encodeAclGrants(grants), alice)).toEqual(grants);
  });

  it('keeps an empty grant list empty (the owner may drop its own grant)', () => {
    expect(decodeAcl(encodeAclGrants([]), alice)).toEqual([]);
  });

  it.each(['{not json', '{"v":2,"g":[]}', '{"v":1}'])('reads an unreadable value %s as private', (stored) => {
    expect(decodeAcl(stored, alice)).toEqual(cannedAclGrants('private', alice));
  });
});

describe(parseGrantHeaders.name, () => {
  const headers = (h: Record<string, string>) => (name: string) => h[name];

  it('is undefined without grant headers', () => {
    expect(parseGrantHeaders(headers({ 'x-amz-acl': 'private' }))).toBeUndefined();
  });

  it('reads ids, e-mail addresses and group URIs, quoted or not, from every header', () => {
    const grants = parseGrantHeaders(
      headers({
        'x-amz-grant-read': `id="bob", uri="${ACL_GROUPS.allUsers}"`,
        'x-amz-grant-write-acp': 'emailAddress="carol@example.com"',
        'x-amz-grant-full-control': 'id=dave',
      }),
    );
    expect(grants).toEqual([
      { grantee: { type: 'CanonicalUser', id: 'bob' }, permission: 'READ' },
      { grantee: { type: 'Group', uri: ACL_GROUPS.allUsers }, permission: 'READ' },
      { grantee: { type: 'Email', email: 'carol@example.com' }, permission: 'WRITE_ACP' },
      { grantee: { type: 'CanonicalUser', id: 'dave' }, permission: 'FULL_CONTROL' },
    ]);
  });

  it.each([
    ['an unknown key', { 'x-amz-grant-read': 'name="bob"' }, 'InvalidArgument'],
    ['an empty value', { 'x-amz-grant-write': ' ' }, 'InvalidArgument'],
    ['garbage after a grant', { 'x-amz-grant-read': 'id="bob" id="carol"' }, 'InvalidArgument'],
    ['an unknown group', { 'x-amz-grant-read': 'uri="http://acs.amazonaws.com/groups/global/Nobody"' }, 'InvalidArgument'],
  ])('refuses %s', (_, h, code) => {
    let thrown: unknown;
    try {
      parseGrantHeaders(headers(h));
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(AclError);
    expect((thrown as AclError).code).toBe(code);
  });
});
