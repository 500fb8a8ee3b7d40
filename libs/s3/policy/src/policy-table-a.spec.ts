import { decide, Row } from './spec-support/policy-table';

/**
 * The policy evaluation table, part A (principals, actions, resources, ownership, ACLs).
 * Expected values follow AWS's documented logic:
 * - https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html (explicit deny > allow > implicit deny)
 * - https://docs.aws.amazon.com/AmazonS3/latest/userguide/how-s3-evaluates-access-control.html (owner, ACL and policy combined)
 * - https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_principal.html, _notprincipal.html,
 *   _action.html, _notaction.html, _resource.html, _notresource.html
 * - https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutBucketPolicy.html (the owner can always manage the policy)
 * - https://docs.aws.amazon.com/AmazonS3/latest/userguide/access-control-block-public-access.html (RestrictPublicBuckets)
 */
const ROWS: Row[] = [
  // no policy: only the owner, or an ACL grant
  ['none', 'owner', 's3:GetObject', 'a.txt', {}, true],
  ['none', 'owner', 's3:PutBucketPolicy', null, {}, true],
  ['none', 'alice', 's3:GetObject', 'a.txt', {}, false],
  ['none', 'anon', 's3:GetObject', 'a.txt', {}, false],
  ['none', 'alice', 's3:GetObject', 'a.txt', {}, true, { acl: true }],
  ['none', 'anon', 's3:ListBucket', null, {}, true, { acl: true }],
  ['none', 'alice', 's3:DeleteBucket', null, {}, false],
  ['none', 'owner', 's3:DeleteBucket', null, {}, true],
  // a public read policy
  ['publicRead', 'anon', 's3:GetObject', 'a.txt', {}, true],
  ['publicRead', 'anon', 's3:GetObject', 'deep/dir/a.txt', {}, true],
  ['publicRead', 'alice', 's3:GetObject', 'a.txt', {}, true],
  ['publicRead', 'anon', 's3:PutObject', 'a.txt', {}, false],
  ['publicRead', 'anon', 's3:GetObjectVersion', 'a.txt', {}, false],
  ['publicRead', 'anon', 's3:ListBucket', null, {}, false],
  ['publicRead', 'anon', 's3:GetObject', null, {}, false],
  ['publicRead', 'alice', 's3:DeleteObject', 'a.txt', {}, false],
  ['publicRead', 'owner', 's3:DeleteObject', 'a.txt', {}, true],
  ['publicRead', 'anon', 's3:GetObjectTagging', 'a.txt', {}, false],
  ['publicRead', 'anon', 's3:GetObject', 'a.txt', {}, false, { restrict: true }],
  ['publicRead', 'alice', 's3:GetObject', 'a.txt', {}, false, { restrict: true }],
  ['publicRead', 'owner', 's3:GetObject', 'a.txt', {}, true, { restrict: true }],
  ['publicRead', 'alice', 's3:GetObject', 'a.txt', {}, false, { restrict: true, acl: true }],
  ['none', 'alice', 's3:GetObject', 'a.txt', {}, true, { restrict: true, acl: true }],
  // explicit deny beats allow
  ['denyOverAllow', 'alice', 's3:GetObject', 'private/x', {}, true],
  ['denyOverAllow', 'alice', 's3:DeleteObject', 'private/x', {}, false],
  ['denyOverAllow', 'alice', 's3:DeleteObject', 'public/x', {}, true],
  ['denyOverAllow', 'alice', 's3:DeleteObject', 'private', {}, true],
  ['denyOverAllow', 'alice', 's3:ListBucket', null, {}, true],
  ['denyOverAllow', 'alice', 's3:PutBucketTagging', null, {}, true],
  ['denyOverAllow', 'alice', 's3:DeleteObject', 'private/x', {}, false, { acl: true }],
  ['denyOverAllow', 'bob', 's3:GetObject', 'private/x', {}, false],
  ['denyOverAllow', 'anon', 's3:GetObject', 'a', {}, false],
  ['denyOverAllow', 'owner', 's3:DeleteObject', 'private/x', {}, true],
  ['denyOverAllow', 'alice', 's3:DeleteObjectVersion', 'private/x', {}, true],
  ['denyOverAllow', 'alice', 's3:PutObject', 'private/deeper/y', {}, true],
  // NotPrincipal in a Deny: everyone but the listed principals is denied
  ['notPrincipal', 'anon', 's3:GetObject', 'open/x', {}, true],
  ['notPrincipal', 'anon', 's3:GetObject', 'secret/x', {}, false],
  ['notPrincipal', 'bob', 's3:GetObject', 'secret/x', {}, false],
  ['notPrincipal', 'alice', 's3:GetObject', 'secret/x', {}, true],
  ['notPrincipal', 'owner', 's3:GetObject', 'secret/x', {}, true],
  ['notPrincipal', 'bob', 's3:GetObject', 'secret/x', {}, false, { acl: true }],
  ['notPrincipal', 'bob', 's3:GetObject', 'secretive/x', {}, true],
  ['notPrincipal', 'alice', 's3:PutObject', 'secret/x', {}, false],
  // NotAction in an Allow: every action but the listed ones
  ['notAction', 'bob', 's3:GetObject', 'x', {}, true],
  ['notAction', 'bob', 's3:PutObject', 'x', {}, true],
  ['notAction', 'bob', 's3:PutObjectTagging', 'x', {}, true],
  ['notAction', 'bob', 's3:DeleteObject', 'x', {}, false],
  ['notAction', 'bob', 's3:DeleteObjectTagging', 'x', {}, false],
  ['notAction', 'bob', 's3:deleteobjectversion', 'x', {}, false],
  ['notAction', 'bob', 's3:ListBucket', null, {}, false],
  ['notAction', 'alice', 's3:GetObject', 'x', {}, false],
  ['notAction', 'anon', 's3:GetObject', 'x', {}, false],
  ['notAction', 'owner', 's3:DeleteObject', 'x', {}, true],
  // NotResource in an Allow: every resource but the listed ones
  ['notResource', 'anon', 's3:GetObject', 'x', {}, true],
  ['notResource', 'anon', 's3:GetObject', 'private/x', {}, false],
  ['notResource', 'anon', 's3:GetObject', 'private', {}, true],
  ['notResource', 'anon', 's3:GetObject', null, {}, false],
  ['notResource', 'anon', 's3:GetObject', 'privatex/y', {}, true],
  ['notResource', 'alice', 's3:GetObject', 'private/a/b', {}, false],
  ['notResource', 'alice', 's3:GetObject', 'private/a/b', {}, true, { acl: true }],
  ['notResource', 'anon', 's3:PutObject', 'x', {}, false],
  // the owner may always manage the policy, whatever it denies; other denies apply to the owner too
  ['ownerDeny', 'owner', 's3:PutBucketPolicy', null, {}, true],
  ['ownerDeny', 'owner', 's3:GetBucketPolicy', null, {}, true],
  ['ownerDeny', 'owner', 's3:DeleteBucketPolicy', null, {}, true],
  ['ownerDeny', 'owner', 's3:DeleteBucket', null, {}, false],
  ['ownerDeny', 'owner', 's3:PutBucketTagging', null, {}, false],
  ['ownerDeny', 'owner', 's3:GetBucketTagging', null, {}, true],
  ['ownerDeny', 'alice', 's3:GetBucketTagging', null, {}, true],
  ['ownerDeny', 'alice', 's3:PutBucketPolicy', null, {}, false],
  ['ownerDeny', 'alice', 's3:DeleteBucket', null, {}, false],
  ['ownerDeny', 'anon', 's3:GetBucketTagging', null, {}, false],
  ['ownerDeny', 'alice', 's3:DeleteBucket', null, {}, false, { acl: true }],
  ['ownerDeny', 'owner', 's3:GetObject', 'x', {}, true],
  // action wildcards (case-insensitive) and resource wildcards (case-sensitive)
  ['wildcards', 'alice', 's3:GetObject', 'docs/a.txt', {}, true],
  ['wildcards', 'alice', 's3:GetObjectTagging', 'docs/sub/a.txt', {}, true],
  ['wildcards', 'alice', 's3:getobject', 'docs/a.txt', {}, true],
  ['wildcards', 'alice', 's3:GetObject', 'docs/a.TXT', {}, false],
  ['wildcards', 'alice', 's3:GetObject', 'docs/a.txt.bak', {}, false],
  ['wildcards', 'alice', 's3:GetObject', 'Docs/a.txt', {}, false],
  ['wildcards', 'alice', 's3:ListBucket', null, {}, true],
  ['wildcards', 'alice', 's3:ListBucketVersions', null, {}, false],
  ['wildcards', 'alice', 's3:GetBucketAcl', null, {}, true],
  ['wildcards', 'alice', 's3:PutObject', 'docs/a.txt', {}, false],
  ['wildcards', 'bob', 's3:GetObject', 'docs/a.txt', {}, false],
  // CanonicalUser principals
  ['canonical', 'erin', 's3:GetObjectTagging', 'k', {}, true],
  ['canonical', 'erin', 's3:GetObject', 'k', {}, false],
  ['canonical', 'frank', 's3:GetObjectTagging', 'k', {}, false],
  ['canonical', 'anon', 's3:GetObjectTagging', 'k', {}, false],
  // policy variables in resources
  ['variables', 'alice', 's3:GetObject', 'home/alice/notes', {}, true],
  ['variables', 'alice', 's3:PutObject', 'home/alice/a/b', {}, true],
  ['variables', 'alice', 's3:GetObject', 'home/bob/notes', {}, false],
  ['variables', 'bob', 's3:GetObject', 'home/bob/notes', {}, true],
  ['variables', 'anon', 's3:GetObject', 'home/anon/notes', {}, false],
  ['variables', 'anon', 's3:GetObject', 'home//notes', {}, false],
  ['variables', 'alice', 's3:DeleteObject', 'home/alice/notes', {}, false],
  ['variables', 'owner', 's3:DeleteObject', 'home/alice/notes', {}, true],
];

describe('bucket policy evaluation table (A)', () => {
  it.each(ROWS.map((r, i) => [i, ...r] as const))('#%i %s: %s %s on %s %j → %s', (_i, ...row) => {
    expect(decide(row as Row)).toBe(row[5]);
  });
  it('holds rows enough for the table of issue 12 with part B', () => expect(ROWS.length).toBeGreaterThanOrEqual(95));
});
