import { Inject, Injectable } from '@nestjs/common';
import { parseDeleteObjects, S3Error, toXml } from '@ostore/s3/protocol';
import { createHash } from 'crypto';
import type { ObjectsService } from '@ostore/s3/core';
import { OBJECTS_SERVICE } from '../../services';
import { PolicyGate } from '../../policy-gate';
import { toS3Error } from '../../error-response';
import { readSmallBody, sendXml } from '../../responses';
import type { S3Handler } from '../../s3-handler';
import type { S3Request } from '../../s3-request';

/** DeleteObjects: up to 1000 keys, each answered on its own (Deleted or Error); Quiet reports errors only. */
@Injectable()
export class DeleteObjectsHandler implements S3Handler {
  readonly operation = 'DeleteObjects';
  readonly access = 'bucket-write' as const;

  constructor(
    @Inject(OBJECTS_SERVICE) private readonly objects: ObjectsService,
    private readonly policies: PolicyGate,
  ) {}

  async handle(req: S3Request): Promise<void> {
    const body = await readSmallBody(req, 2 * 1024 * 1024);
    const md5 = req.header('content-md5');
    if (md5 !== undefined && createHash('md5').update(body).digest('base64') !== md5) {
      throw new S3Error('BadDigest', 'The Content-MD5 you specified did not match what we received.');
    }
    const request = parseDeleteObjects(body.toString('utf8'));
    const owner = req.owner ?? req.bucketInfo!.owner;
    const results = [];
    // Bounded concurrency: fast for 1000 keys without flooding Cassandra.
    const queue = request.objects.map((o, i) => ({ ...o, i }));
    const out: unknown[] = new Array(queue.length);
    const worker = async () => {
      for (let item = queue.shift(); item; item = queue.shift()) {
        try {
          if (!(await this.policies.mayDeleteKey(req, item.key, item.versionId))) throw new S3Error('AccessDenied', 'Access Denied');
          const r = await this.objects.delete(req.target, item.key, owner, item.versionId);
          out[item.i] = {
            kind: 'Deleted',
            value: {
              Key: item.key,
              VersionId: item.versionId,
              DeleteMarker: r.deleteMarker ? 'true' : undefined,
              DeleteMarkerVersionId: r.deleteMarker ? r.versionId : undefined,
            },
          };
        } catch (e) {
          const err = toS3Error(e);
          out[item.i] = { kind: 'Error', value: { Key: item.key, VersionId: item.versionId, Code: err.code, Message: err.message } };
        }
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    results.push(...(out as { kind: 'Deleted' | 'Error'; value: Record<string, string | undefined> }[]));
    sendXml(
      req,
      200,
      toXml('DeleteResult', {
        Deleted: request.quiet ? [] : results.filter((r) => r.kind === 'Deleted').map((r) => r.value),
        Error: results.filter((r) => r.kind === 'Error').map((r) => r.value),
      }),
    );
  }
}
