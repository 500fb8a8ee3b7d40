/**
 * The bucket policy both policy benches evaluate: 12 statements, every fourth a Deny, half with
 * IP and prefix conditions, principals as ids and ARNs, actions with wildcards.
 */
export function benchPolicyDocument(bucket: string, extra: object[] = []): string {
  const statements = Array.from({ length: 12 }, (_, i) => ({
    Sid: `s${i}`,
    Effect: i % 4 === 3 ? 'Deny' : 'Allow',
    Principal: i % 2 ? '*' : { AWS: [`user${i}`, `arn:aws:iam::other${i}:root`] },
    Action: i % 3 ? ['s3:GetObject', 's3:List*'] : 's3:Put*',
    Resource: [`arn:aws:s3:::${bucket}/dir${i}/*`, `arn:aws:s3:::${bucket}`],
    ...(i % 2 ? { Condition: { IpAddress: { 'aws:SourceIp': ['10.0.0.0/8', '192.168.0.0/16'] }, StringLike: { 's3:prefix': ['home/*', ''] } } } : {}),
  }));
  return JSON.stringify({ Version: '2012-10-17', Statement: [...statements, ...extra] });
}
