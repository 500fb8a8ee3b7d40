import { Inject, Injectable } from '@nestjs/common';
import { isoDate, parseEncodingType, parseMaxKeys, s3UrlEncode, S3Error, toXml } from '@ostore/s3/protocol';
import type { ObjectsService, ObjectVersion } from '@ostore/s3/core';
import { OBJECTS_SERVICE } from '../../services';
import { sendXml } from '../../responses';
import type { S3Handler } from '../../s3-handler';
import type { S3Request } from '../../s3-request';

/** encoding-type=url: the only accepted value; keys and prefixes are then URL-encoded in the answer. */
export function encodingOf(req: S3Request): ((s: string) => string) & { on: boolean } {
  const on = parseEncodingType(req.query('encoding-type')) === 'url';
  return Object.assign((s: string) => (on ? s3UrlEncode(s) : s), { on });
}

export function contentsOf(v: ObjectVersion, enc: (s: string) => string, withOwner: boolean) {
  return {
    Key: enc(v.key),
    LastModified: isoDate(v.lastModified),
    ETag: v.etag,
    ChecksumAlgorithm: Object.keys(v.checksums)[0],
    Size: v.size,
    Owner: withOwner ? { ID: v.owner.id, DisplayName: v.owner.displayName } : undefined,
    StorageClass: v.storageClass || 'STANDARD',
  };
}

/**
 * ListObjects (v1): marker pagination; NextMarker with a delimiter, as S3, and on a page cut at the
 * listing's level budget (a deep key chain), whose last key is not where the next page starts.
 */
@Injectable()
export class ListObjectsHandler implements S3Handler {
  readonly operation = 'ListObjects';
  readonly access = 'bucket-read' as const;

  constructor(@Inject(OBJECTS_SERVICE) private readonly objects: ObjectsService) {}

  async handle(req: S3Request): Promise<void> {
    const enc = encodingOf(req);
    const maxKeys = parseMaxKeys(req.query('max-keys'));
    const prefix = req.query('prefix') ?? '';
    const delimiter = req.query('delimiter') || undefined;
    const marker = req.query('marker') ?? '';
    const page = await this.objects.list({ bucket: req.target, prefix, delimiter, after: marker || undefined, maxKeys });
    sendXml(
      req,
      200,
      toXml('ListBucketResult', {
        Name: req.bucket!,
        // ListObjects v1 returns the Prefix as given even with encoding-type=url (AWS does; the SDKs
        // decode only Delimiter, Marker, NextMarker, Key and CommonPrefixes in v1 answers)
        Prefix: prefix,
        Marker: enc(marker),
        NextMarker: page.isTruncated && (delimiter || page.nextMarkerNeeded) && page.nextAfter ? enc(page.nextAfter) : undefined,
        MaxKeys: maxKeys,
        Delimiter: delimiter === undefined ? undefined : enc(delimiter),
        IsTruncated: page.isTruncated,
        EncodingType: enc.on ? 'url' : undefined,
        Contents: page.contents.map((v) => contentsOf(v, enc, true)),
        CommonPrefixes: page.commonPrefixes.map((p) => ({ Prefix: enc(p) })),
      }),
    );
  }
}

const TOKEN_PREFIX = 'ostore1:';
/** A token that resumes after a whole directory (a listing cut at its level budget, see ListObjectsInput.afterGroup). */
const GROUP_TOKEN_PREFIX = 'ostore1-dir:';

/** A continuation token: the listing resumes after `after` (a key or CommonPrefix; with `group`, after every key in that directory). */
export function encodeToken(after: string, group = false): string {
  return Buffer.from((group ? GROUP_TOKEN_PREFIX : TOKEN_PREFIX) + after, 'utf8').toString('base64url');
}

export function decodeToken(token: string): { after: string; group: boolean } {
  const raw = Buffer.from(token, 'base64url').toString('utf8');
  const group = raw.startsWith(GROUP_TOKEN_PREFIX);
  if ((!group && !raw.startsWith(TOKEN_PREFIX)) || Buffer.from(raw, 'utf8').toString('base64url') !== token) {
    throw new S3Error('InvalidArgument', 'The continuation token provided is incorrect', { extra: { ArgumentName: 'continuation-token' } });
  }
  const after = raw.slice((group ? GROUP_TOKEN_PREFIX : TOKEN_PREFIX).length);
  if (group && !after.endsWith('/'))
    throw new S3Error('InvalidArgument', 'The continuation token provided is incorrect', { extra: { ArgumentName: 'continuation-token' } });
  return { after, group };
}

/** ListObjectsV2: opaque continuation tokens, start-after, fetch-owner, KeyCount. */
@Injectable()
export class ListObjectsV2Handler implements S3Handler {
  readonly operation = 'ListObjectsV2';
  readonly access = 'bucket-read' as const;

  constructor(@Inject(OBJECTS_SERVICE) private readonly objects: ObjectsService) {}

  async handle(req: S3Request): Promise<void> {
    const enc = encodingOf(req);
    const maxKeys = parseMaxKeys(req.query('max-keys'));
    const prefix = req.query('prefix') ?? '';
    const delimiter = req.query('delimiter') || undefined;
    const token = req.query('continuation-token');
    const startAfter = req.query('start-after');
    if (token === '') throw new S3Error('InvalidArgument', 'The continuation token provided is incorrect', { extra: { ArgumentName: 'continuation-token' } });
    const from = token !== undefined ? decodeToken(token) : { after: startAfter || undefined, group: false };
    const page = await this.objects.list({ bucket: req.target, prefix, delimiter, after: from.after, afterGroup: from.group, resumable: true, maxKeys });
    const fetchOwner = req.query('fetch-owner') === 'true';
    sendXml(
      req,
      200,
      toXml('ListBucketResult', {
        Name: req.bucket!,
        Prefix: enc(prefix),
        KeyCount: page.contents.length + page.commonPrefixes.length,
        MaxKeys: maxKeys,
        Delimiter: delimiter === undefined ? undefined : enc(delimiter),
        IsTruncated: page.isTruncated,
        ContinuationToken: token,
        NextContinuationToken: page.isTruncated && page.nextAfter !== undefined ? encodeToken(page.nextAfter, page.nextAfterGroup) : undefined,
        StartAfter: startAfter === undefined ? undefined : enc(startAfter),
        EncodingType: enc.on ? 'url' : undefined,
        Contents: page.contents.map((v) => contentsOf(v, enc, fetchOwner)),
        CommonPrefixes: page.commonPrefixes.map((p) => ({ Prefix: enc(p) })),
      }),
    );
  }
}
