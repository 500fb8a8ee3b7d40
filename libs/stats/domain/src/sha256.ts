/**
 * SHA-256 (FIPS 180-4) of a string's UTF-8 bytes, in plain JavaScript, answering only the first
 * 32 bits of the digest: what the `sha256-be32` shard of an event needs (layout.ts).
 *
 * The same function as `crypto.hash('sha256', id)` (a spec compares them over many ids), but
 * without a call into OpenSSL, a digest Buffer and a string conversion per event: for an id of up
 * to 55 bytes (a UUID is 36) it is one compression over reused scratch arrays and allocates
 * nothing. Seed 003 asks for "a fixed implementation of SHA-256": this one is fixed here, and its
 * output is pinned by the domain spec, so no shard of a stored event can move.
 */

const K = new Int32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

const INITIAL = new Int32Array([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
]);

const utf8 = new TextEncoder();
const state = new Int32Array(8);
const w = new Int32Array(64);
/** The padded message; grown (never shrunk) for a longer id. */
let message = new Uint8Array(128);

/** The first 4 bytes of SHA-256(UTF-8 of `text`), big-endian, as an unsigned 32-bit integer. */
export function sha256First32(text: string): number {
  const length = encode(text);
  const blocks = (length + 9 + 63) >>> 6;
  const total = blocks << 6;
  message.fill(0, length, total);
  message[length] = 0x80;
  // the message length in bits, a 64-bit big-endian integer (ids are far below 2^29 bytes)
  const bits = length * 8;
  message[total - 4] = bits >>> 24;
  message[total - 3] = (bits >>> 16) & 0xff;
  message[total - 2] = (bits >>> 8) & 0xff;
  message[total - 1] = bits & 0xff;
  state.set(INITIAL);
  for (let offset = 0; offset < total; offset += 64) compress(offset);
  return state[0] >>> 0;
}

/** Writes the UTF-8 bytes of `text` at the start of `message` (room for the padding too); returns their count. */
function encode(text: string): number {
  const n = text.length;
  if (message.length < n * 3 + 72) message = new Uint8Array(n * 3 + 72);
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) return utf8.encodeInto(text, message).written;
    message[i] = c;
  }
  return n;
}

function compress(offset: number): void {
  const m = message;
  for (let t = 0; t < 16; t++) {
    const i = offset + t * 4;
    w[t] = (m[i] << 24) | (m[i + 1] << 16) | (m[i + 2] << 8) | m[i + 3];
  }
  for (let t = 16; t < 64; t++) {
    const x = w[t - 15];
    const y = w[t - 2];
    const s0 = ((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3);
    const s1 = ((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10);
    w[t] = (w[t - 16] + s0 + w[t - 7] + s1) | 0;
  }
  let a = state[0];
  let b = state[1];
  let c = state[2];
  let d = state[3];
  let e = state[4];
  let f = state[5];
  let g = state[6];
  let h = state[7];
  for (let t = 0; t < 64; t++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const ch = (e & f) ^ (~e & g);
    const t1 = (h + S1 + ch + K[t] + w[t]) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const maj = (a & b) ^ (a & c) ^ (b & c);
    const t2 = (S0 + maj) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  state[0] = (state[0] + a) | 0;
  state[1] = (state[1] + b) | 0;
  state[2] = (state[2] + c) | 0;
  state[3] = (state[3] + d) | 0;
  state[4] = (state[4] + e) | 0;
  state[5] = (state[5] + f) | 0;
  state[6] = (state[6] + g) | 0;
  state[7] = (state[7] + h) | 0;
}
