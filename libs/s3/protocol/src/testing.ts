import { createHmac } from 'crypto';
import { ChunkSigning, chunkStringToSign, trailerStringToSign } from './chunked';
import { sha256Hex } from './sigv4';

/**
 * Test support for this lib and its callers (import from `@ostore/s3/protocol/testing`, never in
 * production code): aws-chunked bodies built from the AWS specification, as SDKs that sign
 * chunks (Java, Go, the aws CLI's s3 transfer with SigV4 streaming) send them.
 */

export interface ChunkedBodyOptions {
  /** Size of every chunk but the last; SDKs use 64 KiB. */
  chunkSize: number;
  /** Trailing headers, e.g. `{ 'x-amz-checksum-crc32': 'base64' }`. */
  trailers?: Record<string, string>;
}

/** STREAMING-AWS4-HMAC-SHA256-PAYLOAD, or …-TRAILER when `trailers` is given. */
export function encodeSignedChunkedBody(
  payload: Buffer,
  signing: ChunkSigning,
  options: ChunkedBodyOptions,
): Buffer {
  const parts: Buffer[] = [];
  let previous = signing.seedSignature;
  for (const chunk of [...split(payload, options.chunkSize), Buffer.alloc(0)]) {
    previous = hmacHex(signing.signingKey, chunkStringToSign(signing, previous, sha256Hex(chunk)));
    parts.push(Buffer.from(`${chunk.length.toString(16)};chunk-signature=${previous}\r\n`), chunk);
    if (chunk.length > 0) parts.push(Buffer.from('\r\n'));
  }
  if (options.trailers) {
    const canonical = Object.entries(options.trailers)
      .map(([name, value]) => `${name}:${value}\n`)
      .join('');
    const signature = hmacHex(signing.signingKey, trailerStringToSign(signing, previous, canonical));
    parts.push(Buffer.from(canonical.replace(/\n/g, '\r\n') + `x-amz-trailer-signature:${signature}\r\n`));
  }
  parts.push(Buffer.from('\r\n'));
  return Buffer.concat(parts);
}

/** STREAMING-UNSIGNED-PAYLOAD-TRAILER, byte for byte as AWS SDK v3 for JavaScript frames it. */
export function encodeUnsignedChunkedBody(payload: Buffer, options: ChunkedBodyOptions): Buffer {
  const parts: Buffer[] = [];
  for (const chunk of split(payload, options.chunkSize)) {
    parts.push(Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n'));
  }
  parts.push(Buffer.from('0\r\n'));
  for (const [name, value] of Object.entries(options.trailers ?? {}))
    parts.push(Buffer.from(`${name}:${value}\r\n`));
  parts.push(Buffer.from('\r\n'));
  return Buffer.concat(parts);
}

function split(payload: Buffer, size: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let i = 0; i < payload.length; i += size) chunks.push(payload.subarray(i, i + size));
  return chunks;
}

function hmacHex(key: Buffer, text: string): string {
  return createHmac('sha256', key).update(text).digest('hex');
}
