import { S3Error } from './errors';
import { cachedSigningKey, hmacSha256, parseAmzDate, sameSignature } from './sigv4-signing';
import { sameSignatureV2, signV2 } from './sigv2';

/**
 * Browser-based uploads (POST object): the policy document a form carries, its signature (SigV4
 * or Signature Version 2) and the check of the form's fields against its conditions, with the
 * errors S3 answers.
 * https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-HTTPPOSTConstructPolicy.html
 */

/** One policy condition, normalised: exact match, prefix match, or the allowed file size. */
export type PostCondition =
  | { op: 'eq' | 'starts-with'; field: string; value: string; source: string }
  | { op: 'content-length-range'; min: number; max: number; source: string };

/** A decoded, validated policy document. */
export interface PostPolicy {
  expiration: Date;
  conditions: PostCondition[];
}

/** Who signed a form, found in its fields: SigV4 (`x-amz-*`) or V2 (`AWSAccessKeyId`, `signature`). */
export type PostSignature =
  | { version: 4; accessKeyId: string; date: string; region: string; service: string; signature: string }
  | { version: 2; accessKeyId: string; signature: string };

const invalidPolicy = (detail: string) => new S3Error('InvalidPolicyDocument', `Invalid Policy: ${detail}`);
const denied = (detail: string) => new S3Error('AccessDenied', `Invalid according to Policy: ${detail}`);
const argument = (name: string, message: string) => new S3Error('InvalidArgument', message, { extra: { ArgumentName: name } });

/** Fields that are never policy-checked: the signature itself, the file, and `x-ignore-*`. */
const UNCHECKED = new Set(['policy', 'x-amz-signature', 'signature', 'awsaccesskeyid', 'file']);

/** Decodes and validates the base64 `policy` field (InvalidPolicyDocument as S3 words it). */
export function parsePostPolicy(base64: string): PostPolicy {
  let doc: unknown;
  try {
    doc = JSON.parse(Buffer.from(base64, 'base64').toString('utf8'));
  } catch {
    throw invalidPolicy('Invalid JSON.');
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw invalidPolicy('Invalid JSON.');
  const { expiration, conditions } = doc as { expiration?: unknown; conditions?: unknown };
  if (expiration === undefined) throw invalidPolicy('Policy missing expiration.');
  const at = typeof expiration === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(expiration) ? new Date(expiration) : undefined;
  if (!at || Number.isNaN(at.getTime())) throw invalidPolicy(`Invalid 'expiration' value: '${String(expiration)}'`);
  if (conditions === undefined) throw invalidPolicy('Policy missing conditions.');
  if (!Array.isArray(conditions)) throw invalidPolicy('Invalid JSON.');
  return { expiration: at, conditions: conditions.flatMap(parseCondition) };
}

function parseCondition(c: unknown): PostCondition[] {
  const source = JSON.stringify(c);
  if (Array.isArray(c)) {
    const [op, a, b] = c as unknown[];
    const name = typeof op === 'string' ? op.toLowerCase() : '';
    if (name === 'content-length-range') {
      const min = Number(a);
      const max = Number(b);
      if (c.length !== 3 || !Number.isInteger(min) || !Number.isInteger(max) || min < 0 || max < min) {
        throw invalidPolicy(`Invalid content-length-range condition: ${source}`);
      }
      return [{ op: 'content-length-range', min, max, source }];
    }
    if ((name === 'eq' || name === 'starts-with') && c.length === 3 && typeof a === 'string' && typeof b === 'string' && a.startsWith('$')) {
      return [{ op: name, field: a.slice(1).toLowerCase(), value: b, source }];
    }
    throw invalidPolicy(`Invalid condition: ${source}`);
  }
  if (typeof c === 'object' && c !== null) {
    const entries = Object.entries(c);
    if (entries.length !== 1 || typeof entries[0][1] !== 'string') throw invalidPolicy(`Invalid condition: ${source}`);
    return [{ op: 'eq', field: entries[0][0].toLowerCase(), value: entries[0][1], source: `["eq", "$${entries[0][0]}", ${JSON.stringify(entries[0][1])}]` }];
  }
  throw invalidPolicy(`Invalid condition: ${source}`);
}

/**
 * The signature fields of a form with a policy. A form without a policy is anonymous (undefined).
 * Missing fields are InvalidArgument naming the field, as S3 answers.
 */
export function postSignatureOf(fields: Map<string, string>): PostSignature | undefined {
  if (!fields.has('policy')) return undefined;
  const algorithm = fields.get('x-amz-algorithm');
  if (algorithm !== undefined) {
    if (algorithm !== 'AWS4-HMAC-SHA256') throw argument('x-amz-algorithm', 'Only AWS4-HMAC-SHA256 is supported for x-amz-algorithm');
    for (const f of ['x-amz-credential', 'x-amz-date', 'x-amz-signature']) {
      if (!fields.get(f)) throw argument(f, `Bucket POST must contain a field named '${f}'.  If it is specified, please check the order of the fields.`);
    }
    const parts = fields.get('x-amz-credential')!.split('/');
    if (parts.length !== 5 || parts[4] !== 'aws4_request' || !/^\d{8}$/.test(parts[1]) || !parseAmzDate(fields.get('x-amz-date')!)) {
      throw argument('x-amz-credential', `Invalid credential: ${fields.get('x-amz-credential')}`);
    }
    return { version: 4, accessKeyId: parts[0], date: parts[1], region: parts[2], service: parts[3], signature: fields.get('x-amz-signature')! };
  }
  const accessKeyId = fields.get('awsaccesskeyid');
  if (!accessKeyId) throw argument('AWSAccessKeyId', "Bucket POST must contain a field named 'AWSAccessKeyId'.  If it is specified, please check the order of the fields.");
  const signature = fields.get('signature');
  if (!signature) throw argument('Signature', "Bucket POST must contain a field named 'Signature'.  If it is specified, please check the order of the fields.");
  return { version: 2, accessKeyId, signature };
}

/** Checks the policy's signature with the signer's secret (SignatureDoesNotMatch otherwise). */
export function verifyPostSignature(sig: PostSignature, policyBase64: string, secretAccessKey: string, region: string): void {
  if (sig.version === 4) {
    if (sig.region !== region) {
      throw argument('x-amz-credential', `Error parsing the X-Amz-Credential parameter; the region '${sig.region}' is wrong; expecting '${region}'`);
    }
    const expected = hmacSha256(cachedSigningKey(secretAccessKey, sig.date, sig.region, sig.service), policyBase64).toString('hex');
    if (!sameSignature(expected, sig.signature)) throw new S3Error('SignatureDoesNotMatch', undefined, { extra: { AWSAccessKeyId: sig.accessKeyId } });
    return;
  }
  if (!sameSignatureV2(signV2(secretAccessKey, policyBase64), sig.signature)) {
    throw new S3Error('SignatureDoesNotMatch', undefined, { extra: { AWSAccessKeyId: sig.accessKeyId } });
  }
}

/**
 * Checks the form against the policy: not expired, every eq / starts-with condition met (the
 * `bucket` field is the addressed bucket, `key` after `${filename}` substitution), the bucket
 * named by one, and every form field covered by some condition. Returns the allowed size range, checked once the file is read.
 */
export function checkPostPolicy(policy: PostPolicy, fields: Map<string, string>, now: Date): { min: number; max: number } | undefined {
  if (now.getTime() > policy.expiration.getTime()) throw denied('Policy expired.');
  const covered = new Set<string>();
  let range: { min: number; max: number } | undefined;
  for (const c of policy.conditions) {
    if (c.op === 'content-length-range') {
      range = { min: c.min, max: c.max };
      continue;
    }
    covered.add(c.field);
    const value = fields.get(c.field) ?? '';
    const ok = c.op === 'eq' ? value === c.value : startsWithAny(c.field, value, c.value);
    if (!ok) throw denied(`Policy Condition failed: ${c.source}`);
  }
  // S3 requires the policy to name the bucket
  if (!covered.has('bucket')) throw denied(`Policy Condition failed: ["eq", "$bucket", ${JSON.stringify(fields.get('bucket') ?? '')}]`);
  for (const name of fields.keys()) {
    if (UNCHECKED.has(name) || name.startsWith('x-ignore-') || name === 'bucket') continue;
    if (!covered.has(name)) throw denied(`Extra input fields: ${name}`);
  }
  return range;
}

/** starts-with; for Content-Type a comma-separated list where each value must start with the prefix. */
function startsWithAny(field: string, value: string, prefix: string): boolean {
  if (field === 'content-type') return value.split(',').every((v) => v.trim().startsWith(prefix));
  return value.startsWith(prefix);
}

/** The content-length-range verdict on a size: EntityTooSmall / EntityTooLarge with the sizes, or undefined. */
export function postSizeError(range: { min: number; max: number } | undefined, size: number): S3Error | undefined {
  if (!range) return undefined;
  if (size > range.max) {
    return new S3Error('EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size', {
      extra: { ProposedSize: String(size), MaxSizeAllowed: String(range.max) },
    });
  }
  if (size < range.min) {
    return new S3Error('EntityTooSmall', 'Your proposed upload is smaller than the minimum allowed size', {
      extra: { ProposedSize: String(size), MinSizeAllowed: String(range.min) },
    });
  }
  return undefined;
}
