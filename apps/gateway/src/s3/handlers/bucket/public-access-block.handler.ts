import { Inject, Injectable } from '@nestjs/common';
import { parseXmlBody, S3Error, toXml, xmlLeaf } from '@ostore/s3/protocol';
import type { BucketsService } from '@ostore/s3/core';
import { decodePublicAccessBlock, encodePublicAccessBlock, PublicAccessBlock } from '@ostore/s3/policy';
import { BUCKETS_SERVICE } from '../../services';
import { sendEmpty, sendXml } from '../../responses';
import { readVerifiedBody } from '../../request-body';
import type { S3Handler } from '../../s3-handler';
import type { S3Request } from '../../s3-request';

const FIELDS: [xml: string, key: keyof PublicAccessBlock][] = [
  ['BlockPublicAcls', 'blockPublicAcls'],
  ['IgnorePublicAcls', 'ignorePublicAcls'],
  ['BlockPublicPolicy', 'blockPublicPolicy'],
  ['RestrictPublicBuckets', 'restrictPublicBuckets'],
];

/** Reads a PublicAccessBlockConfiguration document: each switch true or false, an absent one false. */
export function parsePublicAccessBlock(text: string): PublicAccessBlock {
  const root = parseXmlBody(text, 'PublicAccessBlockConfiguration');
  const known = new Set(FIELDS.map(([x]) => x));
  if (root.children.some((c) => !known.has(c.name))) throw new S3Error('MalformedXML');
  const out = {} as PublicAccessBlock;
  for (const [xml, key] of FIELDS) {
    const v = xmlLeaf(root, xml)?.trim().toLowerCase();
    if (v !== undefined && v !== 'true' && v !== 'false') throw new S3Error('MalformedXML');
    out[key] = v === 'true';
  }
  return out;
}

@Injectable()
export class PutPublicAccessBlockHandler implements S3Handler {
  readonly operation = 'PutPublicAccessBlock';
  readonly access = 'bucket-owner' as const;

  constructor(@Inject(BUCKETS_SERVICE) private readonly buckets: BucketsService) {}

  async handle(req: S3Request): Promise<void> {
    const pab = parsePublicAccessBlock((await readVerifiedBody(req, 'all')).toString('utf8'));
    await this.buckets.setAccessSettings(req.target.name, { publicAccessBlock: encodePublicAccessBlock(pab) });
    sendEmpty(req, 200);
  }
}

@Injectable()
export class GetPublicAccessBlockHandler implements S3Handler {
  readonly operation = 'GetPublicAccessBlock';
  readonly access = 'bucket-owner' as const;

  async handle(req: S3Request): Promise<void> {
    const pab = decodePublicAccessBlock(req.target.publicAccessBlock);
    if (!pab)
      throw S3Error.fromCode('NoSuchPublicAccessBlockConfiguration', 'The public access block configuration was not found', {
        httpStatus: 404,
        extra: { BucketName: req.target.name },
      });
    const body: Record<string, string> = {};
    for (const [xml, key] of FIELDS) body[xml] = String(pab[key]);
    sendXml(req, 200, toXml('PublicAccessBlockConfiguration', body));
  }
}

@Injectable()
export class DeletePublicAccessBlockHandler implements S3Handler {
  readonly operation = 'DeletePublicAccessBlock';
  readonly access = 'bucket-owner' as const;

  constructor(@Inject(BUCKETS_SERVICE) private readonly buckets: BucketsService) {}

  async handle(req: S3Request): Promise<void> {
    await this.buckets.setAccessSettings(req.target.name, { publicAccessBlock: null });
    sendEmpty(req, 204);
  }
}
