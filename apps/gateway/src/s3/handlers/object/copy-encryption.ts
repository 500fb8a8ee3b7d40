import type { ObjectMeta, ObjectsService, ObjectVersion } from '@ostore/s3/core';
import { objectOwnerOf } from '../../object-http';
import type { S3Request } from '../../s3-request';
import type { ReadEncryption, WriteEncryption } from '../../sse/object-encryption';

/**
 * Whether a copy may share the source's stored bytes: only when the destination is to be encrypted
 * exactly as the source is (both plain, both SSE-S3, or SSE-C with the same customer key). Any
 * other copy is re-encrypted: the source is opened with its key and stored again with the new one,
 * so that stored bytes are never shared across keys.
 */
export function sharesStoredBytes(source: ReadEncryption, destination: WriteEncryption | undefined): boolean {
  if (!source.record) return destination === undefined;
  if (!destination) return false;
  if (source.record.alg === 'AES256') return destination.customerKey === undefined;
  return destination.customerKey !== undefined && source.customerKey !== undefined && destination.customerKey.key.equals(source.customerKey.key);
}

/**
 * CopyObject by reading the source (decrypted with its data key) and storing it as a new PutObject
 * encrypted for the destination (or plain). Metadata is the source's (COPY) or the request's
 * (REPLACE); the ACL is the one asked for, as in every copy.
 */
export async function copyReencrypted(
  req: S3Request,
  objects: ObjectsService,
  input: {
    version: ObjectVersion;
    source: ReadEncryption;
    destination: WriteEncryption | undefined;
    metadataDirective: 'COPY' | 'REPLACE';
    taggingDirective: 'COPY' | 'REPLACE';
    meta: ObjectMeta;
    ifNoneMatch?: string;
    ifMatch?: string;
  },
) {
  const { version, source, destination, meta } = input;
  // eslint-disable-next-line @typescript-eslint/no-unused-vars -- the source's record is not the destination's
  const { sse, ...sourceMeta } = version.meta;
  const base = input.metadataDirective === 'REPLACE' ? meta : sourceMeta;
  const newMeta: ObjectMeta = {
    ...base,
    userMeta: base.userMeta ?? {},
    tags: input.taggingDirective === 'REPLACE' ? (meta.tags ?? {}) : version.meta.tags,
    acl: meta.acl ?? 'private',
    storageClass: meta.storageClass,
    ...(destination ? { sse: destination.sse } : {}),
  };
  const body = await objects.openBody(version, undefined, undefined, source.dataKey);
  const result = await objects.put({
    bucket: req.target,
    key: req.key!,
    owner: objectOwnerOf(req),
    body,
    size: version.size,
    meta: newMeta,
    ...(destination ? { encryption: { dataKey: destination.dataKey, etag: destination.etag } } : {}),
    checksumAlgorithms: version.partCount ? [] : (Object.keys(version.checksums) as (keyof ObjectVersion['checksums'])[]),
    ifNoneMatch: input.ifNoneMatch,
    ifMatch: input.ifMatch,
  });
  const stored = await objects.head(req.target, req.key!, result.versionId);
  return { ...result, lastModified: stored.lastModified, sourceVersionId: version.versionId };
}
