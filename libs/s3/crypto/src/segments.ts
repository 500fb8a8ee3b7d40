import { createCipheriv, createDecipheriv, randomBytes } from 'crypto';
import { Transform, TransformCallback } from 'stream';

/**
 * The sealed body format: the plaintext is cut into segments of SEGMENT_BYTES (the last shorter,
 * none for an empty body); each is sealed with AES-256-GCM under the version's data key as
 * `nonce (12) || ciphertext || tag (16)`, with a fresh random nonce, and with its index and whether
 * it is the last one bound in the associated data: segments cannot be swapped, reordered, dropped
 * from the end or moved to another object (another data key) without failing authentication.
 * A range read opens only the segments it covers. This module owns the format.
 */
export const SEGMENT_BYTES = 64 * 1024;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** Bytes a sealed segment adds to its plaintext. */
export const SEGMENT_OVERHEAD = NONCE_BYTES + TAG_BYTES;
const SEALED_SEGMENT_BYTES = SEGMENT_BYTES + SEGMENT_OVERHEAD;
const AAD_TAG = Buffer.from('ostore-sse-segment-v1');

function aad(index: number, last: boolean): Buffer {
  const b = Buffer.alloc(AAD_TAG.length + 9);
  AAD_TAG.copy(b);
  b.writeBigUInt64BE(BigInt(index), AAD_TAG.length);
  b[AAD_TAG.length + 8] = last ? 1 : 0;
  return b;
}

/** The sealed size of a body of `plainBytes`. */
export function sealedSize(plainBytes: number): number {
  const full = Math.floor(plainBytes / SEGMENT_BYTES);
  const rest = plainBytes % SEGMENT_BYTES;
  return full * SEALED_SEGMENT_BYTES + (rest > 0 ? rest + SEGMENT_OVERHEAD : 0);
}

function segmentCount(plainBytes: number): number {
  return Math.ceil(plainBytes / SEGMENT_BYTES);
}

/** Seals one segment (see the module comment). */
export function sealSegment(key: Buffer, index: number, last: boolean, plain: Buffer): Buffer {
  const nonce = randomBytes(NONCE_BYTES);
  const c = createCipheriv('aes-256-gcm', key, nonce);
  c.setAAD(aad(index, last));
  const body = c.update(plain);
  c.final();
  return Buffer.concat([nonce, body, c.getAuthTag()]);
}

/** The plaintext of a sealed segment; throws SealedBodyError when it does not authenticate. */
export function openSegment(key: Buffer, index: number, last: boolean, sealed: Buffer): Buffer {
  if (sealed.length < SEGMENT_OVERHEAD) throw new SealedBodyError(`segment ${index} is truncated`);
  const d = createDecipheriv('aes-256-gcm', key, sealed.subarray(0, NONCE_BYTES));
  d.setAAD(aad(index, last));
  d.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  const plain = d.update(sealed.subarray(NONCE_BYTES, sealed.length - TAG_BYTES));
  try {
    d.final();
  } catch {
    throw new SealedBodyError(`segment ${index} failed authentication`);
  }
  return plain;
}

/** A stored body that does not authenticate: tampered with, truncated or read with another key. */
export class SealedBodyError extends Error {
  constructor(message: string) {
    super(`sealed body: ${message}`);
    this.name = 'SealedBodyError';
  }
}

/** Seals a whole body held in memory (an inline body). */
export function sealBuffer(key: Buffer, plain: Buffer): Buffer {
  const n = segmentCount(plain.length);
  const out: Buffer[] = [];
  for (let i = 0; i < n; i++) out.push(sealSegment(key, i, i === n - 1, plain.subarray(i * SEGMENT_BYTES, (i + 1) * SEGMENT_BYTES)));
  return Buffer.concat(out);
}

/** A stream transform from plaintext to the sealed format; holds at most one segment (plus one chunk). */
export function sealStream(key: Buffer): Transform {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let index = 0;
  return new Transform({
    transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback) {
      pending.push(chunk);
      pendingBytes += chunk.length;
      // a segment is sealed once more bytes follow it: only then is it known not to be the last
      if (pendingBytes > SEGMENT_BYTES) {
        let all = Buffer.concat(pending, pendingBytes);
        while (all.length > SEGMENT_BYTES) {
          this.push(sealSegment(key, index++, false, all.subarray(0, SEGMENT_BYTES)));
          all = all.subarray(SEGMENT_BYTES);
        }
        pending = [all];
        pendingBytes = all.length;
      }
      done();
    },
    flush(done: TransformCallback) {
      if (pendingBytes > 0) this.push(sealSegment(key, index, true, Buffer.concat(pending, pendingBytes)));
      done();
    },
  });
}

/** Where the sealed bytes of a plaintext range are, and how to open them. */
export interface SealedRange {
  /** The sealed bytes to read: [start, endInclusive]. */
  start: number;
  endInclusive: number;
  /** Opens those bytes (as they stream) into exactly the plaintext range asked for. */
  open(): Transform;
}

/**
 * The sealed bytes a plaintext range [start, endInclusive] of a body of `plainBytes` needs (whole
 * segments only), and the transform that opens them and trims to the range. `plainBytes` > 0.
 */
export function sealedRange(key: Buffer, plainBytes: number, range?: { start: number; endInclusive: number }): SealedRange {
  const start = range?.start ?? 0;
  const end = Math.min(range?.endInclusive ?? plainBytes - 1, plainBytes - 1);
  const first = Math.floor(start / SEGMENT_BYTES);
  const lastIndex = segmentCount(plainBytes) - 1;
  const upTo = Math.floor(end / SEGMENT_BYTES);
  return {
    start: first * SEALED_SEGMENT_BYTES,
    endInclusive: Math.min(sealedSize(plainBytes), (upTo + 1) * SEALED_SEGMENT_BYTES) - 1,
    open: () => openStream(key, first, upTo, lastIndex, start - first * SEGMENT_BYTES, end - start + 1),
  };
}

/** Opens sealed segments first..upTo as they arrive, dropping `skip` leading bytes, passing `length`. */
function openStream(key: Buffer, first: number, upTo: number, lastIndex: number, skip: number, length: number): Transform {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let index = first;
  let toSkip = skip;
  let left = length;
  const emit = (t: Transform, sealed: Buffer) => {
    let plain = openSegment(key, index, index === lastIndex, sealed);
    index++;
    if (toSkip > 0) {
      plain = plain.subarray(toSkip);
      toSkip = 0;
    }
    if (plain.length > left) plain = plain.subarray(0, left);
    left -= plain.length;
    if (plain.length > 0) t.push(plain);
  };
  return new Transform({
    transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback) {
      try {
        pending.push(chunk);
        pendingBytes += chunk.length;
        if (pendingBytes >= SEALED_SEGMENT_BYTES) {
          let all = Buffer.concat(pending, pendingBytes);
          while (all.length >= SEALED_SEGMENT_BYTES && index < upTo) {
            emit(this, all.subarray(0, SEALED_SEGMENT_BYTES));
            all = all.subarray(SEALED_SEGMENT_BYTES);
          }
          pending = [all];
          pendingBytes = all.length;
        }
        done();
      } catch (e) {
        done(e as Error);
      }
    },
    flush(done: TransformCallback) {
      try {
        if (index <= upTo) emit(this, Buffer.concat(pending, pendingBytes));
        if (left !== 0 || index !== upTo + 1) throw new SealedBodyError('the stored body ended early');
        done();
      } catch (e) {
        done(e as Error);
      }
    },
  });
}

/** Opens a whole sealed body held in memory (an inline body) of `plainBytes`, or a range of it. */
export function openBuffer(key: Buffer, sealed: Buffer, plainBytes: number, range?: { start: number; endInclusive: number }): Buffer {
  if (plainBytes === 0) return Buffer.alloc(0);
  if (sealed.length !== sealedSize(plainBytes)) throw new SealedBodyError('the stored body has the wrong length');
  const start = range?.start ?? 0;
  const end = Math.min(range?.endInclusive ?? plainBytes - 1, plainBytes - 1);
  const first = Math.floor(start / SEGMENT_BYTES);
  const upTo = Math.floor(end / SEGMENT_BYTES);
  const lastIndex = segmentCount(plainBytes) - 1;
  const parts: Buffer[] = [];
  for (let i = first; i <= upTo; i++) {
    parts.push(openSegment(key, i, i === lastIndex, sealed.subarray(i * SEALED_SEGMENT_BYTES, (i + 1) * SEALED_SEGMENT_BYTES)));
  }
  const base = first * SEGMENT_BYTES;
  return Buffer.concat(parts).subarray(start - base, end - base + 1);
}
