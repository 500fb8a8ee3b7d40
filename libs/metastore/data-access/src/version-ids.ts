import { randomFillSync } from 'crypto';
import { Clock } from '@ostore/shared/clock';

/**
 * Version timestamps ("vts"): microseconds since the epoch from the injected clock, strictly
 * increasing within the process. A vts orders the versions of a key (newest first) and is the
 * Cassandra write timestamp of the key's `objects` index row, so it must stay close to real
 * microseconds. The sub-millisecond part starts at a random offset each millisecond, which makes
 * equal vts from two processes unlikely; when they do happen, VersionIds break the tie.
 */
export class VersionClock {
  private last = 0;

  constructor(private readonly clock: Clock) {}

  next(): number {
    const base = this.clock.nowMs() * 1000;
    const candidate = base + Math.floor(Math.random() * 500);
    this.last = Math.max(this.last + 1, candidate);
    return this.last;
  }
}

/**
 * 16 fresh random bytes. Drawn from a pool refilled 256 vids at a time: one randomBytes call per
 * PUT cost ~2 % of the gateway's CPU on small objects (the crypto call dominates, not the bytes).
 */
const POOL_BYTES = 16 * 256;
let pool = Buffer.alloc(0);
let poolOffset = POOL_BYTES;
function random16(): Buffer {
  if (poolOffset >= pool.length) {
    pool = randomFillSync(Buffer.allocUnsafe(POOL_BYTES));
    poolOffset = 0;
  }
  const out = Buffer.from(pool.subarray(poolOffset, poolOffset + 16));
  poolOffset += 16;
  return out;
}

/** Gregorian epoch (1582-10-15) to Unix epoch, in 100 ns units. */
const GREGORIAN_OFFSET = 0x01b21dd213814000n;

/** What a new vid names: a delete marker's vid sorts above an object's of the same vts. */
export type VidKind = 'object' | 'marker';

/**
 * Builds the 16 bytes of a version-1 uuid whose time is `vts` and whose other 62 bits are random
 * (54 of them) under two constraints that make ties deterministic:
 * - byte 8 keeps the RFC 4122 variant (0x80-0xBF) and bytes 9-15 stay below 0x80, so Cassandra's
 *   signed per-byte comparison of timeuuids and an unsigned (hex) comparison agree;
 * - bit 0x20 of byte 8 is set for delete markers: between two rows with the same vts, the
 *   greater vid is newer (clustering `vid DESC`), so a marker beats an object exactly as its
 *   index tombstone beats the object's index write at equal timestamps.
 */
export function makeVid(vts: number, kind: VidKind = 'object'): Buffer {
  const t = BigInt(vts) * 10n + GREGORIAN_OFFSET;
  const buf = random16();
  buf.writeUInt32BE(Number(t & 0xffffffffn), 0);
  buf.writeUInt16BE(Number((t >> 32n) & 0xffffn), 4);
  buf.writeUInt16BE(Number((t >> 48n) & 0x0fffn) | 0x1000, 6);
  buf[8] = 0x80 | (kind === 'marker' ? 0x20 : 0) | (buf[8] & 0x1f);
  for (let i = 9; i < 16; i++) buf[i] &= 0x7f;
  return buf;
}

/** The vts a vid was made for (makeVid's time field). */
export function vtsOfVid(vid: Buffer): number {
  const low = BigInt(vid.readUInt32BE(0));
  const mid = BigInt(vid.readUInt16BE(4));
  const high = BigInt(vid.readUInt16BE(6) & 0x0fff);
  const t = (high << 48n) | (mid << 32n) | low;
  return Number((t - GREGORIAN_OFFSET) / 10n);
}

/** The canonical text form (8-4-4-4-12 hex) of 16 uuid bytes. */
export function uuidString(buf: Buffer): string {
  const h = buf.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** The 16 bytes of a uuid in text form. */
export function uuidBytes(uuid: string): Buffer {
  return Buffer.from(uuid.replace(/-/g, ''), 'hex');
}

/**
 * The public id of a version (or upload): the vid in URL-safe base64, 22 characters. This module
 * is the one owner of the public ids S3 clients see: the S3 core answers with them and the
 * scanner puts them in candidates, so that the scheduler (and a human reading a topic) use the
 * same ids as the S3 API.
 */
export function encodeId(vid: string): string {
  return uuidBytes(vid).toString('base64url');
}

const ID_RE = /^[A-Za-z0-9_-]{22}$/;

/** The vid behind a public id, or undefined when the id is not one of ours (malformed). */
export function decodeId(id: string): string | undefined {
  if (!ID_RE.test(id)) return undefined;
  const buf = Buffer.from(id, 'base64url');
  if (buf.length !== 16 || buf.toString('base64url') !== id) return undefined;
  if ((buf[6] & 0xf0) !== 0x10 || (buf[8] & 0xc0) !== 0x80) return undefined;
  return uuidString(buf);
}

/** The version id of a null version (unversioned or suspended bucket). */
export const NULL_VERSION_ID = 'null';

/** The public version id of a row: `null` for a null version, else its encoded vid. */
export function publicVersionIdOf(row: { isNull: boolean; vid: string }): string {
  return row.isNull ? NULL_VERSION_ID : encodeId(row.vid);
}
