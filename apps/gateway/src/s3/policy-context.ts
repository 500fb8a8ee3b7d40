import type { TLSSocket } from 'tls';
import { parseTaggingHeader } from '@ostore/s3/protocol';
import { principalArnOf } from '@ostore/s3/policy';
import type { S3Request } from './s3-request';

const LIST_OPERATIONS = new Set(['ListObjects', 'ListObjectsV2', 'ListObjectVersions']);
const HEADER_KEYS = [
  'x-amz-acl', 'x-amz-content-sha256', 'x-amz-copy-source', 'x-amz-grant-read', 'x-amz-grant-write', 'x-amz-grant-read-acp',
  'x-amz-grant-write-acp', 'x-amz-grant-full-control', 'x-amz-metadata-directive', 'x-amz-server-side-encryption',
  'x-amz-server-side-encryption-aws-kms-key-id', 'x-amz-storage-class', 'x-amz-website-redirect-location', 'x-amz-object-ownership',
];

/** When the request was signed (x-amz-date of the header or the presigned query), in ms since the epoch. */
function signedAt(req: S3Request): number | undefined {
  const text = req.header('x-amz-date') ?? req.query('X-Amz-Date');
  const m = text && /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(text);
  return m ? Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) : undefined;
}

/**
 * The request context a bucket policy's conditions test (keys lower-cased, as IAM compares them):
 * AWS's global keys (aws:SourceIp, aws:SecureTransport, aws:CurrentTime, aws:EpochTime, the
 * caller's aws:userid / aws:username / aws:PrincipalArn / aws:PrincipalAccount, aws:UserAgent,
 * aws:Referer) and S3's (s3:prefix, s3:delimiter and s3:max-keys of listings, s3:VersionId,
 * s3:x-amz-* request headers, s3:signatureAge, s3:authType, s3:signatureversion,
 * s3:RequestObjectTag/<k> and s3:RequestObjectTagKeys from x-amz-tagging, and s3:ExistingObjectTag/<k>
 * when the object's tags are given).
 */
export function policyContext(req: S3Request, now: Date, existingTags?: Record<string, string>): Record<string, string[]> {
  const c: Record<string, string[]> = {};
  const set = (key: string, value: string | undefined) => {
    if (value !== undefined) c[key.toLowerCase()] = [value];
  };
  const socket = req.raw.socket;
  const ip = socket.remoteAddress;
  set('aws:sourceip', ip?.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip);
  const tls = (socket as TLSSocket).encrypted === true;
  set('aws:securetransport', String(tls));
  if (tls) set('s3:TlsVersion', (socket as TLSSocket).getProtocol?.()?.replace(/^TLSv/, '') ?? undefined);
  set('aws:currenttime', now.toISOString().replace(/\.\d{3}Z$/, 'Z'));
  set('aws:epochtime', String(Math.floor(now.getTime() / 1000)));
  set('aws:useragent', req.header('user-agent'));
  set('aws:referer', req.header('referer'));
  const user = req.owner;
  if (user) {
    set('aws:userid', user.id);
    set('aws:username', user.id);
    set('aws:principalarn', principalArnOf(user.id));
    set('aws:principalaccount', user.id);
    set('aws:principaltype', 'Account');
    const at = signedAt(req);
    if (at !== undefined) set('s3:signatureage', String(Math.max(0, now.getTime() - at)));
    // SigV2 is `AWS`, SigV4 `AWS4-HMAC-SHA256` (https://docs.aws.amazon.com/AmazonS3/latest/API/bucket-policy-s3-sigv4-conditions.html)
    const v2 = /^AWS /.test(req.header('authorization') ?? '') || req.has('AWSAccessKeyId');
    set('s3:authtype', req.has('X-Amz-Signature') || req.has('Signature') ? 'REST-QUERY-STRING' : 'REST-HEADER');
    set('s3:signatureversion', v2 ? 'AWS' : 'AWS4-HMAC-SHA256');
  }
  if (LIST_OPERATIONS.has(req.operation)) {
    set('s3:prefix', req.query('prefix') ?? '');
    set('s3:delimiter', req.query('delimiter'));
    set('s3:max-keys', req.query('max-keys'));
  }
  if (req.key !== undefined) set('s3:versionid', req.query('versionId') || undefined);
  for (const h of HEADER_KEYS) set(`s3:${h}`, req.header(h));
  const tagging = req.header('x-amz-tagging');
  if (tagging !== undefined) {
    const tags = parseTaggingHeader(tagging);
    for (const [k, v] of Object.entries(tags)) set(`s3:requestobjecttag/${k}`, v);
    if (Object.keys(tags).length) c['s3:requestobjecttagkeys'] = Object.keys(tags);
  }
  for (const [k, v] of Object.entries(existingTags ?? {})) set(`s3:existingobjecttag/${k}`, v);
  return c;
}
