import { randomBytes } from 'crypto';

const SAFE_ID_RE = /^[A-Za-z0-9_-]{4,128}$/;

/**
 * A fresh block id: 128 random bits, lower-case hex. Ids are never reused, which is what lets a
 * deleted block's rows and bytes be removed without fencing against a later writer of the same id.
 */
export function newBlockId(): string {
  return randomBytes(16).toString('hex');
}

/** Throws unless `id` is safe to use as a file name and a CQL key (stores call it before any I/O). */
export function assertBlockId(id: string): void {
  if (!SAFE_ID_RE.test(id)) throw new Error(`invalid block id ${JSON.stringify(id)}`);
}

/** Stable shard of a block id in [0, shards) (FNV-1a of the id, so any id spreads evenly). */
export function shardOf(blockId: string, shards: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < blockId.length; i++) {
    h ^= blockId.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % shards;
}
