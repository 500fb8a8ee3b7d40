import { Inject, Injectable } from '@nestjs/common';
import { parseDeleteObjects, S3Error, toXml } from '@ostore/s3/protocol';
import type { DeleteOutcome, ObjectsService } from '@ostore/s3/core';
import { OBJECTS_SERVICE } from '../../services';
import { PolicyGate } from '../../policy-gate';
import { toS3Error } from '../../error-response';
import { sendXml } from '../../responses';
import { readVerifiedBody } from '../../request-body';
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
    // S3 refuses a DeleteObjects request without Content-MD5 or an x-amz-checksum-* of its body
    const body = await readVerifiedBody(req, 'required', 2 * 1024 * 1024);
    const request = parseDeleteObjects(body.toString('utf8'));
    const owner = req.owner ?? req.bucketInfo!.owner;
    // each key is authorized on its own; the allowed ones are deleted together, so that keys of one
    // directory share their Cassandra reads and mutations (ObjectsService.deleteMany)
    const refusals = await Promise.all(
      request.objects.map((o) =>
        this.policies.mayDeleteKey(req, o.key, o.versionId).then(
          (allowed) => (allowed ? undefined : new S3Error('AccessDenied', 'Access Denied')),
          (error: unknown) => error ?? new Error('authorization failed'),
        ),
      ),
    );
    const outcomes = await this.objects.deleteMany(req.target, owner, request.objects.filter((_, i) => refusals[i] === undefined));
    let next = 0;
    const results = request.objects.map((item, i) => {
      const refusal = refusals[i];
      const outcome: DeleteOutcome = refusal === undefined ? outcomes[next++] : { ok: false, error: refusal };
      if (outcome.ok) {
        const r = outcome.result;
        return {
          kind: 'Deleted' as const,
          value: {
            Key: item.key,
            VersionId: item.versionId,
            DeleteMarker: r.deleteMarker ? 'true' : undefined,
            DeleteMarkerVersionId: r.deleteMarker ? r.versionId : undefined,
          },
        };
      }
      const err = toS3Error(outcome.error);
      return { kind: 'Error' as const, value: { Key: item.key, VersionId: item.versionId, Code: err.code, Message: err.message } };
    });
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
