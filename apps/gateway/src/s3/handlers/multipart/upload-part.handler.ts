import { Inject, Injectable } from '@nestjs/common';
import { parseCopySource, parsePartNumber, S3Error, isoDate, toXml } from '@ostore/s3/protocol';
import type { BucketsService, MultipartService, ObjectsService } from '@ostore/s3/core';
import { AccessControl } from '../../access';
import { BUCKETS_SERVICE, MULTIPART_SERVICE, OBJECTS_SERVICE } from '../../services';
import { announcedLength, bodyVerifier, contentMd5Of, requestedChecksums } from '../../object-http';
import { readSmallBody, sendEmpty, sendXml } from '../../responses';
import type { S3Handler } from '../../s3-handler';
import type { S3Request } from '../../s3-request';
import { checkCopySource } from '../object/copy-object.handler';
import { ObjectEncryption } from '../../sse/object-encryption';

/** Parts are limited to 5 GiB, as on S3. */
const MAX_PART_BYTES = 5 * 1024 ** 3;

@Injectable()
export class UploadPartHandler implements S3Handler {
  readonly operation = 'UploadPart';
  readonly access = 'bucket-write' as const;

  constructor(
    @Inject(MULTIPART_SERVICE) private readonly multipart: MultipartService,
    private readonly sse: ObjectEncryption,
  ) {}

  async handle(req: S3Request): Promise<void> {
    const partNumber = parsePartNumber(req.query('partNumber'));
    const size = announcedLength(req);
    if (size > MAX_PART_BYTES) throw new S3Error('EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size', { extra: { ProposedSize: String(size), MaxSizeAllowed: String(MAX_PART_BYTES) } });
    const checksums = requestedChecksums(req);
    // the part is sealed as its upload asked (its SSE-C key again on every part)
    let sealed: ReturnType<ObjectEncryption['forPart']>;
    const part = await this.multipart.uploadPart({
      bucket: req.target,
      key: req.key!,
      uploadId: req.query('uploadId')!,
      partNumber,
      body: req.body,
      size,
      checksumAlgorithms: checksums.algorithms,
      verify: bodyVerifier(req, size, contentMd5Of(req), checksums),
      encryption: (sse) => (sealed = this.sse.forPart(req, sse)),
    });
    const headers: Record<string, string> = { ETag: part.etag, ...sealed?.headers };
    for (const alg of checksums.algorithms) {
      const v = part.checksums[alg];
      if (v) headers[`x-amz-checksum-${alg.toLowerCase()}`] = v;
    }
    sendEmpty(req, 200, headers);
  }
}

@Injectable()
export class UploadPartCopyHandler implements S3Handler {
  readonly operation = 'UploadPartCopy';
  readonly access = 'bucket-write' as const;

  constructor(
    @Inject(BUCKETS_SERVICE) private readonly buckets: BucketsService,
    @Inject(OBJECTS_SERVICE) private readonly objects: ObjectsService,
    @Inject(MULTIPART_SERVICE) private readonly multipart: MultipartService,
    private readonly accessControl: AccessControl,
    private readonly sse: ObjectEncryption,
  ) {}

  async handle(req: S3Request): Promise<void> {
    const partNumber = parsePartNumber(req.query('partNumber'));
    await readSmallBody(req, 0);
    parseCopySource(req.header('x-amz-copy-source')!);
    const { source, version } = await checkCopySource(req, this.buckets, this.objects, this.accessControl);
    const rangeHeader = req.header('x-amz-copy-source-range');
    let range: { start: number; endInclusive: number } | undefined;
    if (rangeHeader !== undefined) {
      const m = /^bytes=(\d+)-(\d+)$/.exec(rangeHeader.trim());
      if (!m) throw new S3Error('InvalidArgument', 'The x-amz-copy-source-range value must be of the form bytes=first-last where first and last are the zero-based offsets of the first and last bytes to copy');
      range = { start: Number(m[1]), endInclusive: Number(m[2]) };
      if (range.start > range.endInclusive || range.endInclusive >= version.size) {
        throw new S3Error('InvalidRange', 'The requested range is not satisfiable', { extra: { ActualObjectSize: String(version.size), RangeRequested: rangeHeader } });
      }
    }
    // the source opens with its key (x-amz-copy-source-server-side-encryption-customer-*), the part is sealed as its upload asked
    const sourceEncryption = this.sse.forRead(req, version.meta.sse, true);
    let sealed: ReturnType<ObjectEncryption['forPart']>;
    const part = await this.multipart.uploadPartCopy({
      bucket: req.target,
      key: req.key!,
      uploadId: req.query('uploadId')!,
      partNumber,
      source: { ...source, versionId: version.versionId },
      range,
      sourceDataKey: sourceEncryption.dataKey,
      encryption: (sse) => (sealed = this.sse.forPart(req, sse)),
    });
    sendXml(req, 200, toXml('CopyPartResult', { LastModified: isoDate(part.lastModified), ETag: part.etag }), {
      'x-amz-copy-source-version-id': version.versionId !== 'null' ? version.versionId : undefined,
      ...sealed?.headers,
    });
  }
}
