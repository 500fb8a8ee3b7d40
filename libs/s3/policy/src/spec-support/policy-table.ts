import { decideAccess, evaluatePolicy, isPolicyPublic, parseBucketPolicy, principalArnOf } from '../index';

/** The bucket every table policy is written for, and its owner. */
export const BUCKET = 'bkt';
export const OWNER = 'owner';

/** One row: a policy, a caller (user id, or `anon`), an action, a key (or the bucket), request context → allowed? */
export type Row = [policy: string, caller: string, action: string, key: string | null, context: Record<string, string | string[]>, allowed: boolean, facts?: { acl?: boolean; restrict?: boolean }];

const s = (statement: Record<string, unknown>) => statement;
const arn = (k = '') => `arn:aws:s3:::${BUCKET}${k}`;

/** The table's policies, by name (each a Statement list). */
export const POLICIES: Record<string, Record<string, unknown>[]> = {
  none: [],
  publicRead: [s({ Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: arn('/*') })],
  denyOverAllow: [
    s({ Sid: 'all', Effect: 'Allow', Principal: { AWS: 'alice' }, Action: 's3:*', Resource: [arn(), arn('/*')] }),
    s({ Sid: 'nodel', Effect: 'Deny', Principal: { AWS: 'arn:aws:iam::alice:root' }, Action: 's3:DeleteObject', Resource: arn('/private/*') }),
  ],
  notPrincipal: [
    s({ Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: arn('/*') }),
    s({ Effect: 'Deny', NotPrincipal: { AWS: ['alice', OWNER] }, Action: 's3:GetObject', Resource: arn('/secret/*') }),
  ],
  notAction: [s({ Effect: 'Allow', Principal: { AWS: 'arn:aws:iam::123456789012:user/bob' }, NotAction: 's3:Delete*', Resource: arn('/*') })],
  notResource: [s({ Effect: 'Allow', Principal: '*', Action: 's3:GetObject', NotResource: [arn('/private/*'), arn()] })],
  sourceIp: [
    s({ Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: arn('/*'), Condition: { IpAddress: { 'aws:SourceIp': ['10.0.0.0/8', '2001:db8::/32'] } } }),
    s({ Effect: 'Deny', Principal: '*', Action: 's3:GetObject', Resource: arn('/*'), Condition: { IpAddress: { 'aws:SourceIp': '10.66.0.0/16' } } }),
  ],
  notIp: [
    s({ Effect: 'Allow', Principal: { AWS: 'alice' }, Action: 's3:*', Resource: arn('/*') }),
    s({ Effect: 'Deny', Principal: '*', Action: 's3:*', Resource: arn('/*'), Condition: { NotIpAddress: { 'aws:SourceIp': '192.168.1.0/24' } } }),
  ],
  secureTransport: [
    s({ Effect: 'Allow', Principal: { AWS: 'alice' }, Action: ['s3:GetObject', 's3:PutObject'], Resource: arn('/*') }),
    s({ Effect: 'Deny', Principal: '*', Action: 's3:*', Resource: [arn(), arn('/*')], Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
  ],
  prefix: [
    s({ Effect: 'Allow', Principal: { AWS: 'alice' }, Action: 's3:ListBucket', Resource: arn(), Condition: { StringLike: { 's3:prefix': ['home/alice/*', ''] } } }),
    s({ Effect: 'Allow', Principal: { AWS: 'bob' }, Action: 's3:ListBucket', Resource: arn(), Condition: { StringEquals: { 's3:delimiter': '/' } } }),
  ],
  maxKeys: [s({ Effect: 'Allow', Principal: { AWS: 'alice' }, Action: 's3:ListBucket', Resource: arn(), Condition: { NumericLessThanEquals: { 's3:max-keys': '100' } } })],
  dates: [
    s({
      Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: arn('/*'),
      Condition: { DateGreaterThan: { 'aws:CurrentTime': '2026-01-01T00:00:00Z' }, DateLessThan: { 'aws:CurrentTime': '2027-01-01T00:00:00Z' } },
    }),
  ],
  cannedAcl: [
    s({ Effect: 'Allow', Principal: { AWS: 'alice' }, Action: 's3:PutObject', Resource: arn('/*') }),
    s({ Effect: 'Deny', Principal: { AWS: 'alice' }, Action: 's3:PutObject', Resource: arn('/*'), Condition: { StringNotEquals: { 's3:x-amz-acl': 'bucket-owner-full-control' } } }),
  ],
  ifExists: [s({ Effect: 'Allow', Principal: { AWS: 'alice' }, Action: ['s3:GetObject', 's3:GetObjectVersion'], Resource: arn('/*'), Condition: { StringEqualsIfExists: { 's3:VersionId': 'v1' } } })],
  tagSets: [
    s({ Effect: 'Allow', Principal: { AWS: 'alice' }, Action: 's3:PutObject', Resource: arn('/*'), Condition: { 'ForAllValues:StringEquals': { 's3:RequestObjectTagKeys': ['team', 'env'] } } }),
    s({ Effect: 'Deny', Principal: '*', Action: 's3:PutObject', Resource: arn('/*'), Condition: { 'ForAnyValue:StringEquals': { 's3:RequestObjectTagKeys': ['secret'] } } }),
  ],
  existingTag: [s({ Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: arn('/*'), Condition: { StringEquals: { 's3:ExistingObjectTag/public': 'yes' } } })],
  requestTag: [s({ Effect: 'Allow', Principal: { AWS: 'alice' }, Action: 's3:PutObject', Resource: arn('/*'), Condition: { StringEquals: { 's3:RequestObjectTag/team': 'blue' } } })],
  identity: [
    s({ Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: arn('/*'), Condition: { StringEquals: { 'aws:userid': 'carol' } } }),
    s({ Effect: 'Allow', Principal: '*', Action: 's3:ListBucket', Resource: arn(), Condition: { ArnLike: { 'aws:PrincipalArn': 'arn:aws:iam::dave:*' } } }),
  ],
  signatureAge: [
    s({ Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: arn('/*') }),
    s({ Effect: 'Deny', Principal: '*', Action: 's3:*', Resource: arn('/*'), Condition: { NumericGreaterThan: { 's3:signatureAge': '600000' } } }),
  ],
  variables: [s({ Effect: 'Allow', Principal: '*', Action: ['s3:GetObject', 's3:PutObject'], Resource: arn('/home/${aws:userid}/*') })],
  ownerDeny: [
    s({ Effect: 'Deny', Principal: '*', Action: ['s3:DeleteBucket', 's3:PutBucketPolicy', 's3:GetBucketPolicy', 's3:PutBucketTagging'], Resource: arn() }),
    s({ Effect: 'Allow', Principal: { AWS: 'alice' }, Action: 's3:GetBucketTagging', Resource: arn() }),
  ],
  wildcards: [s({ Effect: 'Allow', Principal: { AWS: 'alice' }, Action: ['s3:Get*', 's3:List?ucket'], Resource: [arn(), arn('/docs/*.txt')] })],
  nullKey: [
    s({ Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: arn('/*') }),
    s({ Effect: 'Deny', Principal: '*', Action: 's3:GetObject', Resource: arn('/*'), Condition: { Null: { 'aws:userid': 'true' } } }),
  ],
  ignoreCase: [s({ Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: arn('/*'), Condition: { StringEqualsIgnoreCase: { 'aws:UserAgent': 'Curl/8' }, StringNotLike: { 'aws:Referer': '*evil*' } } })],
  multiKey: [
    s({ Effect: 'Allow', Principal: { AWS: ['alice', 'bob'] }, Action: 's3:ListBucket', Resource: arn(), Condition: { StringEquals: { 's3:prefix': ['a/', 'b/'], 's3:delimiter': '/' } } }),
  ],
  canonical: [s({ Effect: 'Allow', Principal: { CanonicalUser: 'erin' }, Action: 's3:GetObjectTagging', Resource: arn('/*') })],
};

/** A parsed table policy. */
export function policyOf(name: string) {
  const statements = POLICIES[name];
  return statements.length ? parseBucketPolicy(JSON.stringify({ Version: '2012-10-17', Statement: statements }), BUCKET) : undefined;
}

/** The decision for one row, through the lib's evaluation and S3's combination with ownership and ACLs. */
export function decide(row: Row): boolean {
  const [name, caller, action, key, ctx, , facts] = row;
  const userId = caller === 'anon' ? undefined : caller;
  const context: Record<string, string[]> = {};
  if (userId) {
    context['aws:userid'] = [userId];
    context['aws:principalarn'] = [principalArnOf(userId)];
  }
  for (const [k, v] of Object.entries(ctx)) context[k.toLowerCase()] = Array.isArray(v) ? v : [v];
  const policy = policyOf(name);
  const verdict = evaluatePolicy(policy, { userId, action, resource: key === null ? arn() : arn(`/${key}`), context });
  return decideAccess({
    action,
    isBucketOwner: userId === OWNER,
    policy: verdict,
    aclGrants: facts?.acl ?? false,
    restrictPublicPolicy: (facts?.restrict ?? false) && isPolicyPublic(policy),
  });
}
