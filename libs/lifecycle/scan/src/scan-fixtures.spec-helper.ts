import { randomUUID } from 'crypto';
import type { ScannedUploadRow, ScannedVersionRow } from './scanned-object';

export const BUCKET_ID = '2f1c8a52-5a43-4c1e-9a57-0c2d3e4f5a6b';
const DAY = 86_400_000;
export const T0 = Date.UTC(2026, 0, 1);

/** A versions row; `age` in days before T0 sets vts and lastModified. */
export function vrow(
  name: string,
  ageDays: number,
  more: Partial<ScannedVersionRow> = {},
): ScannedVersionRow {
  const ms = T0 - ageDays * DAY;
  return {
    token: 0n,
    bucketId: BUCKET_ID,
    parent: '',
    name,
    vts: ms * 1000 + Math.floor(Math.random() * 1000),
    vid: randomUUID(),
    isNull: false,
    isDeleteMarker: false,
    isGhost: false,
    size: 10,
    etag: '',
    lastModified: new Date(ms),
    storageClass: 'STANDARD',
    ownerId: '',
    ownerName: '',
    ...more,
  };
}

/** Newest first by vts, as Cassandra clusters them. */
export const byVtsDesc = (a: { vts: number }, b: { vts: number }) => b.vts - a.vts;

export function urow(name: string, initiated: Date, more: Partial<ScannedUploadRow> = {}): ScannedUploadRow {
  return {
    token: 0n,
    bucketId: BUCKET_ID,
    parent: '',
    name,
    uploadId: randomUUID(),
    initiated,
    completed: false,
    ...more,
  };
}
