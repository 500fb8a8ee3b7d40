/**
 * The condition keys a bucket policy may test: AWS's global keys and S3's own (from
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-keys.html and the
 * S3 service authorization reference). Names compare case-insensitively; the `…/<tag key>` keys
 * take any tag key.
 */
const KEYS = [
  'aws:CurrentTime', 'aws:EpochTime', 'aws:SecureTransport', 'aws:SourceIp', 'aws:UserAgent', 'aws:Referer',
  'aws:PrincipalArn', 'aws:PrincipalAccount', 'aws:PrincipalType', 'aws:userid', 'aws:username', 'aws:PrincipalOrgID',
  'aws:PrincipalOrgPaths', 'aws:PrincipalIsAWSService', 'aws:PrincipalServiceName', 'aws:SourceVpc', 'aws:SourceVpce',
  'aws:SourceArn', 'aws:SourceAccount', 'aws:SourceOrgID', 'aws:SourceOrgPaths', 'aws:VpcSourceIp', 'aws:ViaAWSService',
  'aws:CalledVia', 'aws:CalledViaFirst', 'aws:CalledViaLast', 'aws:MultiFactorAuthPresent', 'aws:MultiFactorAuthAge',
  'aws:TokenIssueTime', 'aws:RequestedRegion', 'aws:ResourceAccount', 'aws:ResourceOrgID', 'aws:ResourceOrgPaths',
  'aws:TagKeys', 's3:prefix', 's3:delimiter', 's3:max-keys', 's3:VersionId', 's3:x-amz-acl', 's3:x-amz-content-sha256',
  's3:x-amz-copy-source', 's3:x-amz-grant-read', 's3:x-amz-grant-write', 's3:x-amz-grant-read-acp',
  's3:x-amz-grant-write-acp', 's3:x-amz-grant-full-control', 's3:x-amz-metadata-directive', 's3:x-amz-server-side-encryption',
  's3:x-amz-server-side-encryption-aws-kms-key-id', 's3:x-amz-storage-class', 's3:x-amz-website-redirect-location',
  's3:signatureAge', 's3:signatureversion', 's3:authType', 's3:TlsVersion', 's3:LocationConstraint',
  's3:RequestObjectTagKeys', 's3:ExistingJobPriority', 's3:object-lock-mode', 's3:object-lock-retain-until-date',
  's3:object-lock-remaining-retention-days', 's3:object-lock-legal-hold', 's3:ResourceAccount', 's3:AccessPointNetworkOrigin',
  's3:DataAccessPointAccount', 's3:DataAccessPointArn', 's3:x-amz-object-ownership', 's3:x-amz-checksum-algorithm',
].map((k) => k.toLowerCase());
const KNOWN = new Set(KEYS);
const TAG_PREFIXES = ['s3:existingobjecttag/', 's3:requestobjecttag/', 'aws:requesttag/', 'aws:resourcetag/', 'aws:principaltag/'];

/** Whether a condition key is one a bucket policy may use. */
export function isKnownConditionKey(key: string): boolean {
  const k = key.toLowerCase();
  return KNOWN.has(k) || TAG_PREFIXES.some((p) => k.startsWith(p) && k.length > p.length);
}
