import { MalformedPolicyError } from './errors';
import { parseBucketPolicy } from './parse-policy';
import { isPolicyPublic } from './public-policy';

const doc = (statement: unknown, extra: Record<string, unknown> = {}) => JSON.stringify({ Version: '2012-10-17', ...extra, Statement: statement });
const ok = { Effect: 'Allow', Principal: '*', Action: 's3:GetObject', Resource: 'arn:aws:s3:::bkt/*' };
const reason = (text: string) => {
  try {
    parseBucketPolicy(text, 'bkt');
  } catch (e) {
    if (e instanceof MalformedPolicyError) return e.message;
    throw e;
  }
  return 'accepted';
};

describe(parseBucketPolicy.name, () => {
  it.each([
    ['not JSON at the first byte', ' {}', "Policies must be valid JSON and the first byte must be '{'"],
    ['broken JSON', '{"Version":', 'This policy contains invalid Json'],
    ['over 20 KB', doc([ok], { Id: 'x'.repeat(21 * 1024) }), 'Policies must be no more than 20 KB'],
    ['an unknown version', JSON.stringify({ Version: '2020-01-01', Statement: [ok] }), 'The policy must contain a valid version string'],
    ['no Statement', JSON.stringify({ Version: '2012-10-17' }), 'Missing required field Statement'],
    ['an empty Statement', doc([]), 'Could not parse the policy: Statement is empty!'],
    ['a resource of another bucket', doc([{ ...ok, Resource: 'arn:aws:s3:::other/*' }]), 'Policy has invalid resource'],
    ['a resource that is no S3 ARN', doc([{ ...ok, Resource: 'bkt/*' }]), 'Policy has invalid resource'],
    ['an unknown action', doc([{ ...ok, Action: 's3:GetObjekt' }]), 'Policy has invalid action'],
    ['an action of another service', doc([{ ...ok, Action: 'iam:CreateUser' }]), 'Policy has invalid action'],
    ['a bad principal', doc([{ ...ok, Principal: { AWS: 'arn:aws:iam::1:group/x' } }]), 'Invalid principal in policy'],
    ['a principal string other than *', doc([{ ...ok, Principal: 'alice' }]), 'Invalid principal in policy'],
    ['no principal', doc([{ Effect: 'Allow', Action: 's3:GetObject', Resource: 'arn:aws:s3:::bkt/*' }]), 'Missing required field Principal'],
    ['both Action and NotAction', doc([{ ...ok, NotAction: 's3:PutObject' }]), 'Statement may not contain both Action and NotAction'],
    ['no resource', doc([{ Effect: 'Allow', Principal: '*', Action: 's3:GetObject' }]), 'Missing required field Resource'],
    ['a bad effect', doc([{ ...ok, Effect: 'Permit' }]), 'Invalid effect: Permit'],
    ['an unknown operator', doc([{ ...ok, Condition: { StringEqualz: { 'aws:userid': 'a' } } }]), 'Invalid Condition type : StringEqualz'],
    ['an unknown condition key', doc([{ ...ok, Condition: { StringEquals: { 'foo:bar': 'a' } } }]), 'Policy has an invalid condition key'],
    ['duplicate Sids', doc([{ ...ok, Sid: 'a' }, { ...ok, Sid: 'a' }]), 'Statement IDs (SID) in a single policy must be unique'],
    ['NotPrincipal with Allow', doc([{ Effect: 'Allow', NotPrincipal: { AWS: 'alice' }, Action: 's3:GetObject', Resource: 'arn:aws:s3:::bkt/*' }]), 'Invalid policy syntax: NotPrincipal with Effect Allow is not supported'],
    ['an unknown statement field', doc([{ ...ok, Effects: 'Allow' }]), 'Unknown field Effects'],
  ])('refuses %s', (_what, text, message) => expect(reason(text)).toBe(message));

  it.each([
    ['a public read policy', doc([ok])],
    ['wildcard actions and the bucket itself', doc([{ ...ok, Action: ['s3:Get*', 's3:List*'], Resource: ['arn:aws:s3:::bkt', 'arn:aws:s3:::bkt/*'] }])],
    ['user principals in every form', doc([{ ...ok, Principal: { AWS: ['alice', 'arn:aws:iam::bob:root', 'arn:aws:iam::123:user/carol'], CanonicalUser: 'dave' } }])],
    ['statements whose Sids are all empty (as mc anonymous set writes them)', doc([{ ...ok, Sid: '' }, { ...ok, Sid: '', Action: 's3:ListBucket', Resource: 'arn:aws:s3:::bkt' }])],
    ['a single statement object and the 2008 version', JSON.stringify({ Version: '2008-10-17', Statement: ok })],
    ['conditions with qualifiers and numbers', doc([{ ...ok, Condition: { 'ForAnyValue:StringLikeIfExists': { 's3:RequestObjectTagKeys': 'a*' }, NumericLessThan: { 's3:max-keys': 10 }, Bool: { 'aws:SecureTransport': true } } }])],
  ])('accepts %s', (_what, text) => expect(reason(text)).toBe('accepted'));

  it('still reads a stored policy that PUT would now refuse (Allow with NotPrincipal), so its bucket stays usable', () => {
    const legacy = doc([{ Effect: 'Allow', NotPrincipal: { AWS: 'alice' }, Action: 's3:GetObject', Resource: 'arn:aws:s3:::bkt/*' }]);
    expect(() => parseBucketPolicy(legacy, 'bkt')).toThrow(MalformedPolicyError);
    expect(parseBucketPolicy(legacy, 'bkt', { stored: true }).statements[0].effect).toBe('Allow');
  });
});

describe(isPolicyPublic.name, () => {
  const pub = (statement: unknown) => isPolicyPublic(parseBucketPolicy(doc(statement), 'bkt'));
  it.each([
    ['an allow to *', [ok], true],
    ['an allow to {"AWS": "*"}', [{ ...ok, Principal: { AWS: '*' } }], true],
    ['a deny to *', [{ ...ok, Effect: 'Deny' }], false],
    ['an allow to a named user', [{ ...ok, Principal: { AWS: 'alice' } }], false],
    ['a deny through NotPrincipal', [{ Effect: 'Deny', NotPrincipal: { AWS: 'alice' }, Action: 's3:GetObject', Resource: 'arn:aws:s3:::bkt/*' }], false],
    ['an allow fixed to a /24', [{ ...ok, Condition: { IpAddress: { 'aws:SourceIp': '10.1.2.0/24' } } }], false],
    ['an allow to a /0', [{ ...ok, Condition: { IpAddress: { 'aws:SourceIp': '0.0.0.0/0' } } }], true],
    ['an allow fixed to an account', [{ ...ok, Condition: { StringEquals: { 'aws:SourceAccount': '123' } } }], false],
    ['an allow with a wildcard account', [{ ...ok, Condition: { StringLike: { 'aws:SourceAccount': '12*' } } }], true],
    ['an allow conditioned on a key that fixes nothing', [{ ...ok, Condition: { StringEquals: { 's3:prefix': 'a/' } } }], true],
  ])('%s → %s', (_what, statements, expected) => expect(pub(statements)).toBe(expected));
});
