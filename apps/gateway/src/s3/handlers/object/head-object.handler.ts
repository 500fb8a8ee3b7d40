import { Inject, Injectable } from '@nestjs/common';
import type { ObjectsService } from '@ostore/s3/core';
import { AccessControl } from '../../access';
import { OBJECTS_SERVICE } from '../../services';
import { sendEmpty } from '../../responses';
import type { S3Handler } from '../../s3-handler';
import type { S3Request } from '../../s3-request';
import { ObjectEncryption } from '../../sse/object-encryption';
import { notModifiedHeaders, prepareRead } from './get-object.handler';

@Injectable()
export class HeadObjectHandler implements S3Handler {
  readonly operation = 'HeadObject';
  readonly access = 'object-read' as const;

  constructor(
    @Inject(OBJECTS_SERVICE) private readonly objects: ObjectsService,
    private readonly accessControl: AccessControl,
    private readonly sse: ObjectEncryption,
  ) {}

  async handle(req: S3Request): Promise<void> {
    const read = await prepareRead(req, this.objects, this.accessControl, this.sse);
    if (read.notModified) return sendEmpty(req, 304, notModifiedHeaders(read.headers));
    const { version, headers, range } = read;
    if (range) {
      headers['Content-Range'] = `bytes ${range.start}-${range.endInclusive}/${version.size}`;
      return sendEmpty(req, 206, { ...headers, 'Content-Length': range.endInclusive - range.start + 1 });
    }
    sendEmpty(req, 200, { ...headers, 'Content-Length': version.size });
  }
}
