import { S3_ACTIONS } from './actions';
import { parseOperator } from './conditions';
import { isKnownConditionKey } from './condition-keys';
import { MalformedPolicyError } from './errors';
import type { BucketPolicy, ConditionBlock, PolicyStatement } from './model';
import { parsePrincipal } from './principals';
import { wildcardMatch } from './wildcard';

/** AWS's limit on a bucket policy document. */
export const MAX_POLICY_BYTES = 20 * 1024;

const VERSIONS = new Set(['2012-10-17', '2008-10-17']);
const STATEMENT_KEYS = new Set(['Sid', 'Effect', 'Principal', 'NotPrincipal', 'Action', 'NotAction', 'Resource', 'NotResource', 'Condition']);
const fail = (message: string): never => {
  throw new MalformedPolicyError(message);
};

function strings(value: unknown, what: string): string[] {
  const values = Array.isArray(value) ? value : [value];
  if (values.length === 0 || values.some((v) => typeof v !== 'string')) fail(`Policy has invalid ${what}`);
  return values as string[];
}

function actions(value: unknown): string[] {
  const out = strings(value, 'action');
  for (const a of out) {
    if (a === '*') continue;
    if (!/^s3:[A-Za-z*?-]+$/i.test(a) || !S3_ACTIONS.some((known) => wildcardMatch(a, known, true))) fail('Policy has invalid action');
  }
  return out;
}

/** A resource must be this bucket or a key pattern in it (a wildcard in the bucket part may match it). */
function resources(value: unknown, bucket: string): string[] {
  const out = strings(value, 'resource');
  for (const r of out) {
    if (r === '*') continue;
    const m = /^arn:aws:s3:::([^/]*)(\/.*)?$/.exec(r);
    if (!m || !wildcardMatch(m[1].replace(/\$\{[^}]*\}/g, '*'), bucket)) fail('Policy has invalid resource');
  }
  return out;
}

function conditions(value: unknown): ConditionBlock {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail('Policy has invalid condition');
  const block: ConditionBlock = {};
  for (const [operator, keys] of Object.entries(value as Record<string, unknown>)) {
    if (!parseOperator(operator)) fail(`Invalid Condition type : ${operator}`);
    if (typeof keys !== 'object' || keys === null || Array.isArray(keys)) fail('Policy has invalid condition');
    block[operator] = {};
    for (const [key, raw] of Object.entries(keys as Record<string, unknown>)) {
      if (!isKnownConditionKey(key)) fail('Policy has an invalid condition key');
      const values = (Array.isArray(raw) ? raw : [raw]).map((v) => (typeof v === 'boolean' || typeof v === 'number' ? String(v) : v));
      if (values.length === 0 || values.some((v) => typeof v !== 'string')) fail('Policy has invalid condition value');
      block[operator][key] = values as string[];
    }
  }
  return block;
}

function oneOf(s: Record<string, unknown>, a: string, b: string): void {
  if (a in s && b in s) fail(`Statement may not contain both ${a} and ${b}`);
  if (!(a in s) && !(b in s)) fail(`Missing required field ${a}`);
}

function statement(raw: unknown, bucket: string, onPut: boolean): PolicyStatement {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return fail('Policy has invalid statement');
  const s = raw as Record<string, unknown>;
  const unknown = Object.keys(s).find((k) => !STATEMENT_KEYS.has(k));
  if (unknown) fail(`Unknown field ${unknown}`);
  if (s['Effect'] === undefined) fail('Missing required field Effect');
  if (s['Effect'] !== 'Allow' && s['Effect'] !== 'Deny') fail(`Invalid effect: ${String(s['Effect'])}`);
  if (s['Sid'] !== undefined && typeof s['Sid'] !== 'string') fail('Policy has invalid Sid');
  oneOf(s, 'Principal', 'NotPrincipal');
  // "NotPrincipal must be used with "Effect":"Deny". Using it with "Effect":"Allow" is not supported."
  // (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_notprincipal.html).
  // Refused on PUT only: a policy stored before this rule still reads and evaluates as it did.
  if (onPut && s['Effect'] === 'Allow' && 'NotPrincipal' in s) fail('Invalid policy syntax: NotPrincipal with Effect Allow is not supported');
  oneOf(s, 'Action', 'NotAction');
  oneOf(s, 'Resource', 'NotResource');
  return {
    sid: s['Sid'] as string | undefined,
    effect: s['Effect'] as 'Allow' | 'Deny',
    principal: 'Principal' in s ? parsePrincipal(s['Principal']) : undefined,
    notPrincipal: 'NotPrincipal' in s ? parsePrincipal(s['NotPrincipal']) : undefined,
    action: 'Action' in s ? actions(s['Action']) : undefined,
    notAction: 'NotAction' in s ? actions(s['NotAction']) : undefined,
    resource: 'Resource' in s ? resources(s['Resource'], bucket) : undefined,
    notResource: 'NotResource' in s ? resources(s['NotResource'], bucket) : undefined,
    condition: conditions(s['Condition']),
  };
}

/**
 * Parses and validates a bucket policy for `bucket` as S3 does on PutBucketPolicy, throwing
 * MalformedPolicyError with AWS's reason: JSON whose first byte is `{`, at most 20 KB, a known
 * Version, a non-empty Statement whose Sids are unique, each statement with Effect, one of
 * Principal/NotPrincipal (NotPrincipal only with Deny), Action/NotAction (S3 actions, wildcards allowed) and
 * Resource/NotResource (ARNs of this bucket or keys in it), and conditions with IAM's operators
 * on known keys (https://docs.aws.amazon.com/AmazonS3/latest/userguide/bucket-policies.html).
 * `stored` reads a document a bucket already holds: rules added after it was accepted (Allow with
 * NotPrincipal) do not make it unreadable.
 */
export function parseBucketPolicy(document: string, bucket: string, { stored = false }: { stored?: boolean } = {}): BucketPolicy {
  if (Buffer.byteLength(document, 'utf8') > MAX_POLICY_BYTES) fail('Policies must be no more than 20 KB');
  if (!document.startsWith('{')) fail("Policies must be valid JSON and the first byte must be '{'");
  let json: unknown;
  try {
    json = JSON.parse(document);
  } catch {
    return fail('This policy contains invalid Json');
  }
  const p = json as Record<string, unknown>;
  const unknown = Object.keys(p).find((k) => k !== 'Version' && k !== 'Id' && k !== 'Statement');
  if (unknown) fail(`Unknown field ${unknown}`);
  if (p['Version'] !== undefined && (typeof p['Version'] !== 'string' || !VERSIONS.has(p['Version'])))
    fail('The policy must contain a valid version string');
  if (p['Id'] !== undefined && typeof p['Id'] !== 'string') fail('Policy has invalid Id');
  if (p['Statement'] === undefined) fail('Missing required field Statement');
  const raw = Array.isArray(p['Statement']) ? p['Statement'] : [p['Statement']];
  if (raw.length === 0) fail('Could not parse the policy: Statement is empty!');
  const statements = raw.map((s) => statement(s, bucket, !stored));
  // an empty Sid names nothing (minio-go writes `"Sid": ""` in every statement): only named ones must differ
  const sids = statements.map((s) => s.sid).filter((s): s is string => !!s);
  if (new Set(sids).size !== sids.length) fail('Statement IDs (SID) in a single policy must be unique');
  return { version: (p['Version'] as string | undefined) ?? '2008-10-17', id: p['Id'] as string | undefined, statements, document };
}
