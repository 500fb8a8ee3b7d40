import { decide, Row } from './spec-support/policy-table';

/**
 * The policy evaluation table, part B (conditions). Expected values follow AWS's documented logic:
 * - https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition_operators.html
 *   (operators; a key absent from the request fails a positive operator and satisfies a negated one,
 *   `...IfExists` passes when the key is absent, Null tests presence)
 * - https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-single-vs-multi-valued-context-keys.html
 *   (ForAllValues passes for an absent key, ForAnyValue fails)
 * - https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition_logic_multiple_context_keys_or_values.html
 *   (operators and keys AND-ed, the values of a key OR-ed)
 * - https://docs.aws.amazon.com/AmazonS3/latest/userguide/amazon-s3-policy-keys.html and
 *   https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-keys.html (the keys)
 */
const ip = (v: string) => ({ 'aws:SourceIp': v });
const ROWS: Row[] = [
  // IpAddress: allowed blocks, a denied sub-block
  ['sourceIp', 'anon', 's3:GetObject', 'x', ip('10.1.2.3'), true],
  ['sourceIp', 'anon', 's3:GetObject', 'x', ip('10.66.1.1'), false],
  ['sourceIp', 'anon', 's3:GetObject', 'x', ip('11.0.0.1'), false],
  ['sourceIp', 'anon', 's3:GetObject', 'x', ip('2001:db8::1'), true],
  ['sourceIp', 'anon', 's3:GetObject', 'x', ip('2001:db9::1'), false],
  ['sourceIp', 'anon', 's3:GetObject', 'x', ip('::ffff:10.1.1.1'), true],
  ['sourceIp', 'anon', 's3:GetObject', 'x', {}, false],
  ['sourceIp', 'owner', 's3:GetObject', 'x', ip('11.0.0.1'), true],
  ['sourceIp', 'owner', 's3:GetObject', 'x', ip('10.66.0.1'), false],
  ['sourceIp', 'alice', 's3:GetObject', 'x', ip('10.255.255.255'), true],
  ['sourceIp', 'anon', 's3:GetObject', 'x', ip('10.0.0.0'), true],
  ['sourceIp', 'anon', 's3:GetObject', null, ip('10.1.2.3'), false],
  // NotIpAddress in a Deny
  ['notIp', 'alice', 's3:GetObject', 'x', ip('192.168.1.7'), true],
  ['notIp', 'alice', 's3:GetObject', 'x', ip('192.168.2.7'), false],
  ['notIp', 'alice', 's3:GetObject', 'x', {}, false],
  ['notIp', 'owner', 's3:PutObject', 'x', ip('10.0.0.1'), false],
  ['notIp', 'owner', 's3:PutObject', 'x', ip('192.168.1.1'), true],
  ['notIp', 'alice', 's3:PutObject', 'x', ip('192.168.1.255'), true],
  ['notIp', 'bob', 's3:GetObject', 'x', ip('192.168.1.1'), false],
  ['notIp', 'alice', 's3:ListBucket', null, ip('192.168.1.1'), false],
  ['notIp', 'owner', 's3:ListBucket', null, ip('10.0.0.1'), true],
  ['notIp', 'alice', 's3:GetObject', 'x', ip('not-an-ip'), false],
  // Bool on aws:SecureTransport
  ['secureTransport', 'alice', 's3:GetObject', 'x', { 'aws:SecureTransport': 'true' }, true],
  ['secureTransport', 'alice', 's3:GetObject', 'x', { 'aws:SecureTransport': 'false' }, false],
  ['secureTransport', 'alice', 's3:GetObject', 'x', {}, true],
  ['secureTransport', 'owner', 's3:ListBucket', null, { 'aws:SecureTransport': 'false' }, false],
  ['secureTransport', 'owner', 's3:ListBucket', null, { 'aws:SecureTransport': 'true' }, true],
  ['secureTransport', 'anon', 's3:GetObject', 'x', { 'aws:SecureTransport': 'true' }, false],
  ['secureTransport', 'alice', 's3:PutObject', 'x', { 'aws:SecureTransport': 'TRUE' }, true],
  ['secureTransport', 'alice', 's3:DeleteObject', 'x', { 'aws:SecureTransport': 'true' }, false],
  // StringLike / StringEquals on s3:prefix and s3:delimiter
  ['prefix', 'alice', 's3:ListBucket', null, { 's3:prefix': 'home/alice/' }, true],
  ['prefix', 'alice', 's3:ListBucket', null, { 's3:prefix': 'home/alice/docs/' }, true],
  ['prefix', 'alice', 's3:ListBucket', null, { 's3:prefix': 'home/bob/' }, false],
  ['prefix', 'alice', 's3:ListBucket', null, { 's3:prefix': '' }, true],
  ['prefix', 'alice', 's3:ListBucket', null, {}, false],
  ['prefix', 'alice', 's3:ListBucket', null, { 's3:prefix': 'home/alice' }, false],
  ['prefix', 'bob', 's3:ListBucket', null, { 's3:delimiter': '/' }, true],
  ['prefix', 'bob', 's3:ListBucket', null, { 's3:delimiter': '|' }, false],
  ['prefix', 'bob', 's3:ListBucket', null, {}, false],
  ['prefix', 'alice', 's3:ListBucket', null, { 's3:delimiter': '/' }, false],
  ['prefix', 'anon', 's3:ListBucket', null, { 's3:prefix': 'home/alice/' }, false],
  ['prefix', 'alice', 's3:ListBucketVersions', null, { 's3:prefix': 'home/alice/' }, false],
  // Numeric on s3:max-keys
  ['maxKeys', 'alice', 's3:ListBucket', null, { 's3:max-keys': '100' }, true],
  ['maxKeys', 'alice', 's3:ListBucket', null, { 's3:max-keys': '99' }, true],
  ['maxKeys', 'alice', 's3:ListBucket', null, { 's3:max-keys': '101' }, false],
  ['maxKeys', 'alice', 's3:ListBucket', null, { 's3:max-keys': 'abc' }, false],
  ['maxKeys', 'alice', 's3:ListBucket', null, {}, false],
  ['maxKeys', 'alice', 's3:ListBucket', null, { 's3:max-keys': '0' }, true],
  ['maxKeys', 'alice', 's3:ListBucket', null, { 's3:max-keys': '1000' }, false],
  ['maxKeys', 'bob', 's3:ListBucket', null, { 's3:max-keys': '10' }, false],
  // Date on aws:CurrentTime (two operators AND-ed)
  ['dates', 'anon', 's3:GetObject', 'x', { 'aws:CurrentTime': '2026-12-01T15:00:00Z' }, true],
  ['dates', 'anon', 's3:GetObject', 'x', { 'aws:CurrentTime': '2025-06-01T00:00:00Z' }, false],
  ['dates', 'anon', 's3:GetObject', 'x', { 'aws:CurrentTime': '2027-01-01T00:00:00Z' }, false],
  ['dates', 'anon', 's3:GetObject', 'x', { 'aws:CurrentTime': '2026-01-01T00:00:00Z' }, false],
  ['dates', 'anon', 's3:GetObject', 'x', { 'aws:CurrentTime': '2026-01-01T00:00:01Z' }, true],
  ['dates', 'anon', 's3:GetObject', 'x', { 'aws:CurrentTime': '1796000000' }, true],
  ['dates', 'anon', 's3:GetObject', 'x', {}, false],
  ['dates', 'anon', 's3:GetObject', 'x', { 'aws:CurrentTime': 'garbage' }, false],
  // StringNotEquals on s3:x-amz-acl in a Deny
  ['cannedAcl', 'alice', 's3:PutObject', 'x', { 's3:x-amz-acl': 'bucket-owner-full-control' }, true],
  ['cannedAcl', 'alice', 's3:PutObject', 'x', { 's3:x-amz-acl': 'public-read' }, false],
  ['cannedAcl', 'alice', 's3:PutObject', 'x', {}, false],
  ['cannedAcl', 'alice', 's3:PutObject', 'x', { 's3:x-amz-acl': 'BUCKET-OWNER-FULL-CONTROL' }, false],
  ['cannedAcl', 'bob', 's3:PutObject', 'x', { 's3:x-amz-acl': 'bucket-owner-full-control' }, false],
  ['cannedAcl', 'owner', 's3:PutObject', 'x', { 's3:x-amz-acl': 'public-read' }, true],
  // ...IfExists on s3:VersionId
  ['ifExists', 'alice', 's3:GetObject', 'x', {}, true],
  ['ifExists', 'alice', 's3:GetObjectVersion', 'x', { 's3:VersionId': 'v1' }, true],
  ['ifExists', 'alice', 's3:GetObjectVersion', 'x', { 's3:VersionId': 'v2' }, false],
  ['ifExists', 'bob', 's3:GetObject', 'x', {}, false],
  ['ifExists', 'alice', 's3:PutObject', 'x', {}, false],
  // ForAllValues / ForAnyValue on s3:RequestObjectTagKeys
  ['tagSets', 'alice', 's3:PutObject', 'x', { 's3:RequestObjectTagKeys': ['team'] }, true],
  ['tagSets', 'alice', 's3:PutObject', 'x', { 's3:RequestObjectTagKeys': ['team', 'env'] }, true],
  ['tagSets', 'alice', 's3:PutObject', 'x', { 's3:RequestObjectTagKeys': ['team', 'owner'] }, false],
  ['tagSets', 'alice', 's3:PutObject', 'x', {}, true],
  ['tagSets', 'alice', 's3:PutObject', 'x', { 's3:RequestObjectTagKeys': ['secret'] }, false],
  ['tagSets', 'owner', 's3:PutObject', 'x', { 's3:RequestObjectTagKeys': ['secret', 'team'] }, false],
  ['tagSets', 'owner', 's3:PutObject', 'x', { 's3:RequestObjectTagKeys': ['team'] }, true],
  ['tagSets', 'anon', 's3:PutObject', 'x', { 's3:RequestObjectTagKeys': ['team'] }, false],
  ['tagSets', 'alice', 's3:PutObject', 'x', { 's3:RequestObjectTagKeys': ['Team'] }, false],
  // s3:ExistingObjectTag/<key> and s3:RequestObjectTag/<key>
  ['existingTag', 'anon', 's3:GetObject', 'x', { 's3:ExistingObjectTag/public': 'yes' }, true],
  ['existingTag', 'anon', 's3:GetObject', 'x', {}, false],
  ['existingTag', 'anon', 's3:GetObject', 'x', { 's3:ExistingObjectTag/public': 'no' }, false],
  ['existingTag', 'alice', 's3:GetObject', 'x', { 's3:ExistingObjectTag/public': 'yes' }, true],
  ['existingTag', 'anon', 's3:PutObject', 'x', { 's3:ExistingObjectTag/public': 'yes' }, false],
  ['existingTag', 'anon', 's3:GetObject', 'x', { 's3:ExistingObjectTag/other': 'yes' }, false],
  ['requestTag', 'alice', 's3:PutObject', 'x', { 's3:RequestObjectTag/team': 'blue' }, true],
  ['requestTag', 'alice', 's3:PutObject', 'x', { 's3:RequestObjectTag/team': 'red' }, false],
  ['requestTag', 'alice', 's3:PutObject', 'x', {}, false],
  ['requestTag', 'bob', 's3:PutObject', 'x', { 's3:RequestObjectTag/team': 'blue' }, false],
  // aws:userid and aws:PrincipalArn
  ['identity', 'carol', 's3:GetObject', 'x', {}, true],
  ['identity', 'alice', 's3:GetObject', 'x', {}, false],
  ['identity', 'anon', 's3:GetObject', 'x', {}, false],
  ['identity', 'dave', 's3:ListBucket', null, {}, true],
  ['identity', 'carol', 's3:ListBucket', null, {}, false],
  ['identity', 'anon', 's3:ListBucket', null, {}, false],
  ['identity', 'dave', 's3:GetObject', 'x', {}, false],
  // Numeric on s3:signatureAge in a Deny
  ['signatureAge', 'anon', 's3:GetObject', 'x', { 's3:signatureAge': '1000' }, true],
  ['signatureAge', 'alice', 's3:GetObject', 'x', { 's3:signatureAge': '600001' }, false],
  ['signatureAge', 'alice', 's3:GetObject', 'x', { 's3:signatureAge': '600000' }, true],
  ['signatureAge', 'anon', 's3:GetObject', 'x', {}, true],
  ['signatureAge', 'owner', 's3:GetObject', 'x', { 's3:signatureAge': '700000' }, false],
  ['signatureAge', 'owner', 's3:ListBucket', null, { 's3:signatureAge': '700000' }, true],
  // Null: deny anonymous callers (no aws:userid)
  ['nullKey', 'anon', 's3:GetObject', 'x', {}, false],
  ['nullKey', 'alice', 's3:GetObject', 'x', {}, true],
  ['nullKey', 'owner', 's3:GetObject', 'x', {}, true],
  // StringEqualsIgnoreCase and StringNotLike (absent key satisfies the negation)
  ['ignoreCase', 'anon', 's3:GetObject', 'x', { 'aws:UserAgent': 'curl/8' }, true],
  ['ignoreCase', 'anon', 's3:GetObject', 'x', { 'aws:UserAgent': 'curl/8', 'aws:Referer': 'http://evil.example' }, false],
  ['ignoreCase', 'anon', 's3:GetObject', 'x', { 'aws:UserAgent': 'curl/8', 'aws:Referer': 'http://good.example' }, true],
  ['ignoreCase', 'anon', 's3:GetObject', 'x', { 'aws:UserAgent': 'wget' }, false],
  ['ignoreCase', 'anon', 's3:GetObject', 'x', {}, false],
  // several keys AND-ed, several values OR-ed
  ['multiKey', 'alice', 's3:ListBucket', null, { 's3:prefix': 'a/', 's3:delimiter': '/' }, true],
  ['multiKey', 'bob', 's3:ListBucket', null, { 's3:prefix': 'b/', 's3:delimiter': '/' }, true],
  ['multiKey', 'alice', 's3:ListBucket', null, { 's3:prefix': 'c/', 's3:delimiter': '/' }, false],
  ['multiKey', 'alice', 's3:ListBucket', null, { 's3:prefix': 'a/' }, false],
  ['multiKey', 'alice', 's3:ListBucket', null, { 's3:prefix': 'a/', 's3:delimiter': '|' }, false],
  ['multiKey', 'carol', 's3:ListBucket', null, { 's3:prefix': 'a/', 's3:delimiter': '/' }, false],
];

describe('bucket policy evaluation table (B)', () => {
  it.each(ROWS.map((r, i) => [i, ...r] as const))('#%i %s: %s %s on %s %j → %s', (_i, ...row) => {
    expect(decide(row as Row)).toBe(row[5]);
  });
  it('holds rows enough for the table of issue 12 with part A', () => expect(ROWS.length).toBeGreaterThanOrEqual(100));
});
