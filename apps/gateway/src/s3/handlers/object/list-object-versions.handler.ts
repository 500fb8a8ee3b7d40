import { Inject, Injectable } from '@nestjs/common';
import { isoDate, parseMaxKeys, S3Error, toXmlOrdered, XmlValue } from '@ostore/s3/protocol';
import type { ObjectsService } from '@ostore/s3/core';
import { OBJECTS_SERVICE } from '../../services';
import { sendXml } from '../../responses';
import type { S3Handler } from '../../s3-handler';
import type { S3Request } from '../../s3-request';
import { encodingOf } from './list-objects.handler';

/** ListObjectVersions: Version and DeleteMarker entries interleaved in key order, newest first per key. */
@Injectable()
export class ListObjectVersionsHandler implements S3Handler {
  readonly operation = 'ListObjectVersions';
  readonly access = 'bucket-read' as const;

  constructor(@Inject(OBJECTS_SERVICE) private readonly objects: ObjectsService) {}

  async handle(req: S3Request): Promise<void> {
    const enc = encodingOf(req);
    const maxKeys = parseMaxKeys(req.query('max-keys'));
    const prefix = req.query('prefix') ?? '';
    const delimiter = req.query('delimiter') || undefined;
    const keyMarker = req.query('key-marker') ?? '';
    const versionIdMarker = req.query('version-id-marker') ?? '';
    if (versionIdMarker && !keyMarker) {
      throw new S3Error('InvalidArgument', 'A version-id marker cannot be specified without a key marker.', { extra: { ArgumentName: 'version-id-marker', ArgumentValue: versionIdMarker } });
    }
    const page = await this.objects.listVersions({
      bucket: req.target,
      prefix,
      delimiter,
      keyMarker: keyMarker || undefined,
      versionIdMarker: versionIdMarker || undefined,
      maxKeys,
    });
    const entries: [string, XmlValue][] = [
      ['Name', req.bucket!],
      ['Prefix', enc(prefix)],
      ['KeyMarker', enc(keyMarker)],
      ['VersionIdMarker', versionIdMarker],
    ];
    if (page.isTruncated) {
      entries.push(['NextKeyMarker', page.nextKeyMarker === undefined ? undefined : enc(page.nextKeyMarker)]);
      entries.push(['NextVersionIdMarker', page.nextVersionIdMarker]);
    }
    entries.push(['MaxKeys', maxKeys]);
    if (delimiter !== undefined) entries.push(['Delimiter', enc(delimiter)]);
    entries.push(['IsTruncated', page.isTruncated]);
    if (enc.on) entries.push(['EncodingType', 'url']);
    for (const v of page.versions) {
      const owner = { ID: v.owner.id, DisplayName: v.owner.displayName };
      if (v.isDeleteMarker) {
        entries.push(['DeleteMarker', { Key: enc(v.key), VersionId: v.versionId, IsLatest: v.isLatest, LastModified: isoDate(v.lastModified), Owner: owner }]);
      } else {
        entries.push([
          'Version',
          {
            Key: enc(v.key),
            VersionId: v.versionId,
            IsLatest: v.isLatest,
            LastModified: isoDate(v.lastModified),
            ETag: v.etag,
            Size: v.size,
            Owner: owner,
            StorageClass: v.storageClass || 'STANDARD',
          },
        ]);
      }
    }
    for (const p of page.commonPrefixes) entries.push(['CommonPrefixes', { Prefix: enc(p) }]);
    sendXml(req, 200, toXmlOrdered('ListVersionsResult', entries));
  }
}
