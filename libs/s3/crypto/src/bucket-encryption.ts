import { parseXmlBody, S3Error, toXml, xmlChildren, xmlLeaf } from '@ostore/s3/protocol';

/** The largest ServerSideEncryptionConfiguration body read. */
export const MAX_ENCRYPTION_XML_BYTES = 16 * 1024;

/**
 * A bucket's default encryption as stored in the bucket row (`buckets.encryption`): only SSE-S3
 * exists here. This module owns that format and the XML of Put/GetBucketEncryption.
 */
export interface BucketEncryption {
  algorithm: 'AES256';
  bucketKeyEnabled: boolean;
}

/**
 * Parses a PutBucketEncryption body: one Rule with ApplyServerSideEncryptionByDefault whose
 * SSEAlgorithm is AES256 (aws:kms and aws:kms:dsse are NotImplemented, a KMSMasterKeyID with
 * AES256 is InvalidArgument, anything else MalformedXML).
 */
export function parseBucketEncryptionXml(body: string): BucketEncryption {
  const root = parseXmlBody(body, 'ServerSideEncryptionConfiguration');
  const rules = xmlChildren(root, 'Rule');
  if (rules.length !== 1 || root.children.length !== 1) throw new S3Error('MalformedXML');
  const rule = rules[0]!;
  const byDefault = xmlChildren(rule, 'ApplyServerSideEncryptionByDefault');
  if (byDefault.length !== 1) throw new S3Error('MalformedXML');
  const algorithm = xmlLeaf(byDefault[0]!, 'SSEAlgorithm')?.trim();
  if (algorithm === 'aws:kms' || algorithm === 'aws:kms:dsse')
    throw new S3Error('NotImplemented', 'Default encryption with KMS keys (SSE-KMS) is not implemented: the configuration was refused', {
      extra: { Header: 'SSEAlgorithm' },
    });
  if (algorithm !== 'AES256') throw new S3Error('MalformedXML');
  if (xmlLeaf(byDefault[0]!, 'KMSMasterKeyID') !== undefined)
    throw new S3Error('InvalidArgument', 'a KMSMasterKeyID is not applicable if the default sse algorithm is not aws:kms or aws:kms:dsse', {
      extra: { ArgumentName: 'ApplyServerSideEncryptionByDefault' },
    });
  const bucketKey = xmlLeaf(rule, 'BucketKeyEnabled')?.trim();
  if (bucketKey !== undefined && bucketKey !== 'true' && bucketKey !== 'false') throw new S3Error('MalformedXML');
  return { algorithm: 'AES256', bucketKeyEnabled: bucketKey === 'true' };
}

/** The GetBucketEncryption document. */
export function renderBucketEncryptionXml(config: BucketEncryption): string {
  return toXml('ServerSideEncryptionConfiguration', {
    Rule: { ApplyServerSideEncryptionByDefault: { SSEAlgorithm: config.algorithm }, BucketKeyEnabled: config.bucketKeyEnabled },
  });
}

/** The stored form (bucket row). */
export function encodeBucketEncryption(config: BucketEncryption): string {
  return JSON.stringify({ v: 1, ...config });
}

/** A stored configuration, undefined for none; throws on an unreadable one (never silently plain). */
export function decodeBucketEncryption(stored: string | undefined): BucketEncryption | undefined {
  if (!stored) return undefined;
  try {
    const o = JSON.parse(stored) as { v?: number; algorithm?: string; bucketKeyEnabled?: boolean };
    if (o.v === 1 && o.algorithm === 'AES256') return { algorithm: 'AES256', bucketKeyEnabled: o.bucketKeyEnabled === true };
  } catch {
    // not ours
  }
  throw new Error('unreadable bucket encryption configuration');
}
