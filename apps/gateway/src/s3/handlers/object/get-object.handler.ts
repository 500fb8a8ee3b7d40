import { finished } from 'stream/promises';
import { Inject, Injectable } from '@nestjs/common';
import { evaluatePreconditions, parseRange, S3Error } from '@ostore/s3/protocol';
import type { ObjectsService } from '@ostore/s3/core';
import { AccessControl } from '../../access';
import { OBJECTS_SERVICE } from '../../services';
import { partChecksumHeaders, versionHeaders } from '../../object-http';
import { sendEmpty, startResponse } from '../../responses';
import { sendBody } from '../../send-body';
import type { S3Handler } from '../../s3-handler';
import type { S3Request } from '../../s3-request';
import { ObjectEncryption } from '../../sse/object-encryption';

const OVERRIDES: [string, string][] = [
  ['response-content-type', 'Content-Type'],
  ['response-content-language', 'Content-Language'],
  ['response-expires', 'Expires'],
  ['response-cache-control', 'Cache-Control'],
  ['response-content-disposition', 'Content-Disposition'],
  ['response-content-encoding', 'Content-Encoding'],
];

/** Shared by GET and HEAD: lookup, object ACL, preconditions, partNumber and Range. */
export async function prepareRead(req: S3Request, objects: ObjectsService, access: AccessControl, sse: ObjectEncryption) {
  const versionId = req.query('versionId');
  const version = await objects.head(req.target, req.key!, versionId === undefined || versionId === '' ? undefined : versionId);
  if (!access.isObjectReadAllowed(req, version.owner.id, version.meta.acl)) throw new S3Error('AccessDenied', 'Access Denied');
  // an SSE-C object needs its key (400 without, 403 with another); dataKey opens an encrypted body
  const { dataKey, headers: sseHeaders } = sse.forRead(req, version.meta.sse);
  const outcome = evaluatePreconditions(
    {
      ifMatch: req.header('if-match'),
      ifNoneMatch: req.header('if-none-match'),
      ifModifiedSince: req.header('if-modified-since'),
      ifUnmodifiedSince: req.header('if-unmodified-since'),
    },
    { etag: version.etag, lastModified: version.lastModified },
  );
  if (outcome === 'failed') throw new S3Error('PreconditionFailed', 'At least one of the pre-conditions you specified did not hold', { extra: { Condition: 'If-Match' } });
  const headers = { ...versionHeaders(req, version, req.bucketInfo!.versioning !== 'Unversioned'), ...sseHeaders };
  if (outcome === 'not-modified') return { version, headers, notModified: true as const };

  const partParam = req.query('partNumber');
  let partNumber: number | undefined;
  if (partParam !== undefined) {
    partNumber = Number(partParam);
    if (!Number.isInteger(partNumber) || partNumber < 1 || partNumber > 10000) {
      throw new S3Error('InvalidArgument', 'Part number must be an integer between 1 and 10000, inclusive', { extra: { ArgumentName: 'partNumber', ArgumentValue: partParam } });
    }
    if (req.header('range')) throw new S3Error('InvalidRequest', 'Cannot specify both Range header and partNumber query parameter');
  }
  const range = partNumber === undefined ? parseRange(req.header('range'), version.size) : undefined;
  for (const [param, header] of OVERRIDES) {
    const value = req.query(param);
    if (value === undefined) continue;
    if (req.principal.kind === 'anonymous') throw new S3Error('InvalidRequest', 'Request specific response headers cannot be used for anonymous GET requests.');
    headers[header] = value;
  }
  return { version, headers, notModified: false as const, range, partNumber, dataKey };
}

@Injectable()
export class GetObjectHandler implements S3Handler {
  readonly operation = 'GetObject';
  readonly access = 'object-read' as const;

  constructor(
    @Inject(OBJECTS_SERVICE) private readonly objects: ObjectsService,
    private readonly accessControl: AccessControl,
    private readonly sse: ObjectEncryption,
  ) {}

  async handle(req: S3Request): Promise<void> {
    const read = await prepareRead(req, this.objects, this.accessControl, this.sse);
    if (read.notModified) return sendEmpty(req, 304, notModifiedHeaders(read.headers));
    const { version, headers, range, partNumber, dataKey } = read;
    if (version.inlineBody && !dataKey && range === undefined && partNumber === undefined) {
      // A whole small body read with its metadata: one write, no stream machinery.
      startResponse(req, 200, { ...headers, 'Content-Length': version.inlineBody.length });
      req.res.end(version.inlineBody);
      await finished(req.res);
      return;
    }
    const part = partNumber !== undefined ? await this.objects.partRange(version, partNumber) : undefined;
    const served = part ?? range;
    const body = await this.objects.openBody(version, range, partNumber, dataKey);
    if (part) Object.assign(headers, partChecksumHeaders(req, version, part.checksum));
    if (served) headers['Content-Range'] = `bytes ${served.start}-${served.endInclusive}/${version.size}`;
    const length = served ? served.endInclusive - served.start + 1 : version.size;
    startResponse(req, served && (range || version.partCount !== undefined) ? 206 : 200, { ...headers, 'Content-Length': length });
    await sendBody(body, req.res);
  }
}

/** A 304 carries the validators and caching headers only. */
export function notModifiedHeaders(h: Record<string, string | number | undefined>) {
  return { ETag: h['ETag'], 'Last-Modified': h['Last-Modified'], 'Cache-Control': h['Cache-Control'], Expires: h['Expires'], 'x-amz-version-id': h['x-amz-version-id'] };
}
