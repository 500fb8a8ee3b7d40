import { Inject, Injectable } from '@nestjs/common';
import { parseMaxKeys, parsePartNumberMarker, S3Error, toXml, XmlValue } from '@ostore/s3/protocol';
import { checksumTypeOf } from '@ostore/s3/core';
import type { ObjectsService } from '@ostore/s3/core';
import { AccessControl } from '../../access';
import { OBJECTS_SERVICE } from '../../services';
import { sendXml } from '../../responses';
import type { S3Handler } from '../../s3-handler';
import type { S3Request } from '../../s3-request';
import { ObjectEncryption } from '../../sse/object-encryption';

const ATTRIBUTES = ['ETag', 'Checksum', 'ObjectParts', 'StorageClass', 'ObjectSize'] as const;
type Attribute = (typeof ATTRIBUTES)[number];

/** x-amz-object-attributes: at least one of S3's five names (comma-separated, any case of spacing). */
function requestedAttributes(value: string | undefined): Set<Attribute> {
  const names = (value ?? '')
    .split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  if (names.length === 0)
    throw new S3Error('InvalidArgument', 'The x-amz-object-attributes header specifying the attributes to be retrieved is either missing or empty', {
      extra: { ArgumentName: 'x-amz-object-attributes' },
    });
  for (const n of names)
    if (!(ATTRIBUTES as readonly string[]).includes(n))
      throw new S3Error('InvalidArgument', 'Invalid attribute name specified.', {
        extra: { ArgumentName: 'x-amz-object-attributes', ArgumentValue: n },
      });
  return new Set(names as Attribute[]);
}

/** GetObjectAttributes: ETag, checksums, parts (multipart objects), storage class and size, without the body. */
@Injectable()
export class GetObjectAttributesHandler implements S3Handler {
  readonly operation = 'GetObjectAttributes';
  readonly access = 'object-read' as const;

  constructor(
    @Inject(OBJECTS_SERVICE) private readonly objects: ObjectsService,
    private readonly accessControl: AccessControl,
    private readonly sse: ObjectEncryption,
  ) {}

  async handle(req: S3Request): Promise<void> {
    const wanted = requestedAttributes(req.header('x-amz-object-attributes'));
    const maxParts = parseMaxKeys(req.header('x-amz-max-parts'), 'x-amz-max-parts');
    const marker = parsePartNumberMarker(req.header('x-amz-part-number-marker'), 'x-amz-part-number-marker') ?? 0;
    const versionId = req.query('versionId') || undefined;
    const version = await this.objects.head(req.target, req.key!, versionId);
    if (!this.accessControl.isObjectReadAllowed(req, version.owner.id, version.meta.acl))
      throw new S3Error('AccessDenied', 'Access Denied');
    // an SSE-C object's attributes need its customer key, as its body does
    this.sse.checkKey(req, version.meta.sse);

    const checksums = Object.entries(version.checksums);
    let objectParts: XmlValue | undefined;
    if (wanted.has('ObjectParts') && version.partCount) {
      const all = await this.objects.partSizes(version);
      const after = all.filter((p) => p.partNumber > marker);
      const page = after.slice(0, maxParts);
      const truncated = page.length < after.length;
      objectParts = {
        PartsCount: version.partCount, // TotalPartsCount in the SDKs; PartsCount on the wire
        PartNumberMarker: marker,
        NextPartNumberMarker: page.length ? page[page.length - 1].partNumber : marker,
        MaxParts: maxParts,
        IsTruncated: truncated,
        // each part's checksum of the upload's algorithm (the object's one algorithm), when it had one
        Part: page.map((p) => ({
          ...(p.checksum !== undefined && checksums.length ? { [`Checksum${checksums[0][0]}`]: p.checksum } : {}),
          PartNumber: p.partNumber,
          Size: p.size,
        })),
      };
    }
    sendXml(
      req,
      200,
      toXml('GetObjectAttributesResponse', {
        ETag: wanted.has('ETag') ? version.etag.replace(/^"|"$/g, '') : undefined,
        Checksum:
          wanted.has('Checksum') && checksums.length
            ? { ...Object.fromEntries(checksums.map(([alg, v]) => [`Checksum${alg}`, v])), ChecksumType: checksumTypeOf(checksums[0][1]) }
            : undefined,
        ObjectParts: objectParts,
        StorageClass: wanted.has('StorageClass') ? version.storageClass : undefined,
        ObjectSize: wanted.has('ObjectSize') ? version.size : undefined,
      }),
      {
        'Last-Modified': version.lastModified.toUTCString(),
        'x-amz-version-id': req.bucketInfo!.versioning !== 'Unversioned' ? version.versionId : undefined,
      },
    );
  }
}
