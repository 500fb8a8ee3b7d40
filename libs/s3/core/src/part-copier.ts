import { Readable, Writable } from 'stream';
import { pipeline } from 'stream/promises';
import type { BlockEntry, PartRow, UploadRow } from '@ostore/metastore/data-access';
import { openBuffer, partDataKey } from '@ostore/s3/crypto';
import type { ByteRange, ChecksumAlgorithm, CopySource, ObjectMeta, Part, PartEncryption, PartEncryptionOf } from './api';
import { DigestTap, quotedEtag } from './checksums';
import { noSuchKey, noSuchVersion, s3err } from './errors';
import { planPartCopy } from './part-copy';
import { openSealedBlocks } from './sealed-read';
import type { BucketKey } from './version-data';
import type { VersionStore } from './version-store';

/** What a part row records about its bytes. */
export interface PartFacts {
  size: number;
  etag: string;
  checksums: Partial<Record<ChecksumAlgorithm, string>>;
}

/** A recorded part: what the client is answered, and its row. */
export interface SavedPart {
  part: Part;
  row: PartRow;
}

/** Records a part whose blocks are stored (references, row, retiring older rows); `inFlight` are discarded if that fails. */
export type SavePart = (bucket: BucketKey, upload: UploadRow, partNumber: number, blocks: BlockEntry[], facts: PartFacts, inFlight?: BlockEntry[]) => Promise<SavedPart>;

/**
 * The data key that seals the parts of `upload` (each under its part key, see partDataKey), asked
 * of `encryption` with the upload's stored record. An encrypted upload never gets a plain part, a
 * plain one never a sealed part.
 */
export function partSealOf(upload: UploadRow, encryption: PartEncryptionOf | undefined): PartEncryption | undefined {
  const sse = (JSON.parse(upload.meta) as ObjectMeta).sse;
  const seal = encryption?.(sse);
  if (sse && !seal) throw new Error('a part of an encrypted upload is stored only with its data key');
  if (!sse && seal) throw new Error('a part of a plain upload is not sealed');
  return seal;
}

/**
 * One attempt of UploadPartCopy: the part is the source range. Plain to plain, source blocks inside
 * the range are shared (see planPartCopy) and the ETag is the source's when the whole of a
 * single-part object is copied, else the md5 of the range. When either side is encrypted nothing is
 * shared: the range is opened with the source's data key and stored sealed with the part's key (or
 * plain), in one pass.
 */
export async function copyPartOnce(
  store: VersionStore,
  savePart: SavePart,
  bucket: BucketKey,
  srcBucket: BucketKey,
  upload: UploadRow,
  input: { key: string; partNumber: number; source: CopySource; range?: ByteRange; sourceDataKey?: Buffer; encryption?: PartEncryptionOf },
): Promise<SavedPart> {
  const src = input.source.versionId
    ? await store.findVersion(srcBucket.bucketId, input.source.key, input.source.versionId, { body: true })
    : await store.newest(srcBucket.bucketId, input.source.key, { body: true });
  if (!src) throw input.source.versionId ? noSuchVersion(input.source.key, input.source.versionId) : noSuchKey(input.source.key);
  if (src.isDeleteMarker) {
    if (input.source.versionId) throw s3err('InvalidRequest', 'The source of a copy request may not specifically refer to a delete marker by version id.');
    throw noSuchKey(input.source.key);
  }
  const sourceSealed = !!(await store.metaOf(src))?.sse;
  const sourceKey = sourceSealed ? input.sourceDataKey : undefined;
  if (sourceSealed && !sourceKey) throw new Error('an encrypted copy source is opened with its data key');
  const seal = partSealOf(upload, input.encryption);
  const srcBlocks = await store.blocksOf(src);
  // a small source stored inline has no blocks: its bytes are in its row or its metadata row
  const inline = srcBlocks.length === 0 && src.size > 0 ? await store.inlineBodyOf(src) : undefined;
  const readSource = (r: ByteRange): Readable => {
    if (sourceKey && inline) return Readable.from([openBuffer(sourceKey, inline, src.size, r)], { objectMode: false });
    if (sourceKey) return openSealedBlocks((blocks, br) => store.openBlocks(blocks, br), srcBlocks, src.size, sourceKey, !!src.partCount, r);
    return inline ? Readable.from([inline.subarray(r.start, r.endInclusive + 1)], { objectMode: false }) : store.openBlocks(srcBlocks, r);
  };
  const whole = input.range === undefined;
  const range = input.range ?? { start: 0, endInclusive: src.size - 1 };
  if (!whole && (range.start < 0 || range.endInclusive < range.start || range.endInclusive >= src.size))
    throw s3err('InvalidRange', 'The requested range is not satisfiable', {
      RangeRequested: `bytes=${range.start}-${range.endInclusive}`,
      ActualObjectSize: String(src.size),
    });
  const size = src.size === 0 && whole ? 0 : range.endInclusive - range.start + 1;
  const algorithms = upload.checksumAlgorithm ? [upload.checksumAlgorithm as ChecksumAlgorithm] : [];
  if (sourceKey || seal) {
    const ticket = await store.admitQuota(bucket, { bytes: size, objects: 0 });
    try {
      const { stored, digests } = await store.storeBody(size > 0 ? readSource(range) : Readable.from([]), algorithms, undefined, seal && partDataKey(seal.dataKey, input.partNumber));
      const etag = seal?.etag ? seal.etag(digests.md5) : quotedEtag(digests.md5);
      const saved = await savePart(bucket, upload, input.partNumber, stored.blocks, { size: stored.size, etag, checksums: digests.checksums });
      await store.recordUsage(bucket, 'copy', stored.size, 0, ticket);
      return saved;
    } finally {
      ticket?.release();
    }
  }
  const pieces = planPartCopy(srcBlocks, range, size, !!inline);
  let etag: string;
  let checksums: Partial<Record<ChecksumAlgorithm, string>> = {};
  if (whole && !src.etag.includes('-') && algorithms.length === 0) {
    etag = src.etag;
  } else {
    const tap = new DigestTap(algorithms);
    const body = size > 0 ? readSource(range) : Readable.from([]);
    await pipeline(body, tap, new Writable({ write: (_chunk, _enc, cb) => cb() }));
    const d = tap.result();
    etag = quotedEtag(d.md5);
    checksums = d.checksums;
  }
  const ticket = await store.admitQuota(bucket, { bytes: size, objects: 0 });
  const blocks: BlockEntry[] = [];
  const written: BlockEntry[] = [];
  try {
    for (const p of pieces) {
      if ('shared' in p) blocks.push(p.shared);
      else {
        const stored = await store.writeBlocks(readSource(p.copy));
        blocks.push(...stored.blocks);
        written.push(...stored.blocks);
      }
    }
  } catch (e) {
    ticket?.release();
    await store.discardBlocks(written);
    throw e;
  }
  try {
    const saved = await savePart(bucket, upload, input.partNumber, blocks, { size, etag, checksums }, written);
    await store.recordUsage(bucket, 'copy', size, 0, ticket);
    return saved;
  } finally {
    ticket?.release();
  }
}
