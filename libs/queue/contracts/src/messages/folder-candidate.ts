import { z } from 'zod';
import { defineContract, fields } from './message-contract';

/** Which folder index a directory row belongs to: object_folders, version_folders or upload_folders. */
export const FOLDER_KINDS = ['object', 'version', 'upload'] as const;
export type FolderKind = (typeof FOLDER_KINDS)[number];

/**
 * "This directory was absent from the Bloom filter of non-empty prefixes" — to the
 * `<kind>-folders` queue. A false positive of the filter only delays a directory by one cycle;
 * the scheduler re-checks emptiness and deletes the row transactionally.
 */
export interface FolderCandidate {
  bucketId: string;
  bucket: string;
  /** The partition the folder row lives in ('' or ending with '/'). */
  parent: string;
  /** The child segment with its trailing '/', as stored (`cats/`; `/` for the empty segment of `a//b`). */
  name: string;
  kind: FolderKind;
  /**
   * The filter generation whose scan judged the directory absent (v3 on). The scheduler deletes
   * only for the newest generations; a candidate without one (v1, v2) or of an older generation
   * is skipped, so a stale filter never causes a deletion.
   */
  generation?: number;
}

/** v1: the name of a non-empty segment only, so the directory `a//` (from keys like `a//b`) was refused. */
const wireV1 = z
  .object({
    bucketId: fields.bucketId,
    bucket: fields.bucket,
    parent: fields.parent,
    name: fields.folderName,
    kind: z.enum(FOLDER_KINDS),
  })
  .strict();

/**
 * v2: the name may be the empty segment, `/` (row `{parent: 'a/', name: '/'}` is the directory
 * `a//` that keys like `a//b` make; `folderRowsOf` of @ostore/s3/core writes it). Otherwise as v1,
 * which stays readable; a consumer that reads only v1 rejects a v2 message loudly.
 */
const wireV2 = z
  .object({
    bucketId: fields.bucketId,
    bucket: fields.bucket,
    parent: fields.parent,
    name: fields.folderSegment,
    kind: z.enum(FOLDER_KINDS),
  })
  .strict();

/** v3: v2 plus the filter generation of the scan that published it (absent only when written without one). */
const wireV3 = wireV2.extend({ generation: z.number().int().nonnegative().optional() }).strict();

/** Contract of the three `*-folders` queues. */
export const FolderCandidate = defineContract<FolderCandidate, typeof wireV3>({
  name: 'FolderCandidate',
  version: 3,
  wire: wireV3,
  encode: (c) => ({
    bucketId: c.bucketId,
    bucket: c.bucket,
    parent: c.parent,
    name: c.name,
    kind: c.kind,
    ...(c.generation === undefined ? {} : { generation: c.generation }),
  }),
  older: { 1: wireV1, 2: wireV2 },
});
