import { createHash, createHmac } from 'crypto';
import { Transform, TransformCallback } from 'stream';
import { S3Error } from './errors';
import {
  EMPTY_SHA256,
  sameSignature,
  STREAMING_SIGNED_PAYLOAD,
  STREAMING_SIGNED_PAYLOAD_TRAILER,
  STREAMING_UNSIGNED_PAYLOAD_TRAILER,
} from './sigv4';

/**
 * Decoding of `aws-chunked` request bodies (x-amz-content-sha256 = STREAMING-*).
 * https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming.html
 * https://docs.aws.amazon.com/AmazonS3/latest/API/sigv4-streaming-trailers.html
 */

export type ChunkedMode =
  | typeof STREAMING_SIGNED_PAYLOAD
  | typeof STREAMING_SIGNED_PAYLOAD_TRAILER
  | typeof STREAMING_UNSIGNED_PAYLOAD_TRAILER;

/** The result of a verified SigV4 header request (see verifySigV4) that seeds the chunk chain. */
export interface ChunkSigning {
  signingKey: Buffer;
  seedSignature: string;
  scope: string;
  amzDate: string;
}

export interface ChunkedDecoderOptions {
  mode: ChunkedMode;
  /** Required for the signed modes. */
  signing?: ChunkSigning;
  /** x-amz-decoded-content-length: the decoded body must be exactly this long. */
  decodedContentLength?: number;
  /** Names from x-amz-trailer: each must arrive, and no other trailer is accepted. */
  expectedTrailers?: string[];
  /** Largest accepted chunk; 16 MiB by default (SDKs send 8–128 KiB). */
  maxChunkSize?: number;
}

export interface ChunkedDecoder extends Transform {
  /** Trailing headers by lower-case name, without x-amz-trailer-signature; complete after 'end'. */
  readonly trailers: Record<string, string>;
  /** Payload bytes announced by the chunk headers read so far. */
  readonly decodedLength: number;
}

export const DEFAULT_MAX_CHUNK_SIZE = 16 * 1024 * 1024;
/** Chunk-header and trailer lines are short (≈ 90 bytes signed); anything longer is an attack or garbage. */
const MAX_LINE = 4096;
const MAX_TRAILER_BYTES = 16 * 1024;
const CRLF = Buffer.from('\r\n');

/** The chunked mode named by an x-amz-content-sha256 value, if it names one. */
export function chunkedModeOf(payloadHash: string): ChunkedMode | undefined {
  return payloadHash === STREAMING_SIGNED_PAYLOAD ||
    payloadHash === STREAMING_SIGNED_PAYLOAD_TRAILER ||
    payloadHash === STREAMING_UNSIGNED_PAYLOAD_TRAILER
    ? payloadHash
    : undefined;
}

/** String to sign of one chunk: the previous signature chains every chunk to the request. */
export function chunkStringToSign(
  signing: Omit<ChunkSigning, 'signingKey' | 'seedSignature'>,
  previousSignature: string,
  chunkSha256Hex: string,
): string {
  return [
    'AWS4-HMAC-SHA256-PAYLOAD',
    signing.amzDate,
    signing.scope,
    previousSignature,
    EMPTY_SHA256,
    chunkSha256Hex,
  ].join('\n');
}

/** String to sign of the trailer: `name:value\n` per trailer, chained to the final chunk's signature. */
export function trailerStringToSign(
  signing: Omit<ChunkSigning, 'signingKey' | 'seedSignature'>,
  previousSignature: string,
  canonicalTrailers: string,
): string {
  const hash = createHash('sha256').update(canonicalTrailers).digest('hex');
  return ['AWS4-HMAC-SHA256-TRAILER', signing.amzDate, signing.scope, previousSignature, hash].join('\n');
}

type State = 'chunk-header' | 'chunk-data' | 'chunk-end' | 'trailer' | 'done';

/**
 * A streaming decoder: aws-chunked bytes in, payload bytes out. Input may be split anywhere.
 * Signed chunks are held until their signature is verified, so at most one chunk is buffered
 * and no unverified byte reaches the consumer; unsigned chunks stream through. Errors are
 * S3Errors: SignatureDoesNotMatch, IncompleteBody (early end or length mismatch), InvalidRequest
 * (malformed framing).
 */
export function createChunkedDecoder(options: ChunkedDecoderOptions): ChunkedDecoder {
  return new AwsChunkedDecoder(options);
}

class AwsChunkedDecoder extends Transform implements ChunkedDecoder {
  readonly trailers: Record<string, string> = {};
  decodedLength = 0;

  private readonly signed: boolean;
  private readonly withTrailer: boolean;
  private readonly maxChunkSize: number;
  private state: State = 'chunk-header';
  private line: Buffer[] = [];
  private lineLength = 0;
  private remaining = 0;
  private crlfSeen = 0;
  private chunkSignature = '';
  private previousSignature = '';
  private chunkHash = createHash('sha256');
  private held: Buffer[] = [];
  private trailerBytes = 0;
  private readonly trailerLines: string[] = [];
  private trailerSignature?: string;
  private failed = false;

  constructor(private readonly options: ChunkedDecoderOptions) {
    super();
    this.signed = options.mode !== STREAMING_UNSIGNED_PAYLOAD_TRAILER;
    this.withTrailer = options.mode !== STREAMING_SIGNED_PAYLOAD;
    this.maxChunkSize = options.maxChunkSize ?? DEFAULT_MAX_CHUNK_SIZE;
    if (this.signed) {
      if (!options.signing)
        throw new Error(`${options.mode} needs the request's signing key and seed signature`);
      this.previousSignature = options.signing.seedSignature;
    }
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    if (this.failed) return callback();
    try {
      this.consume(chunk);
      callback();
    } catch (error) {
      this.failed = true;
      callback(error as Error);
    }
  }

  override _flush(callback: TransformCallback): void {
    if (this.failed) return callback();
    try {
      // The blank line that ends the trailer section may be missing at the very end of the body.
      if (this.state === 'trailer' && this.lineLength === 0) this.finish();
      if (this.state !== 'done') throw incomplete('The request body ended before the final chunk.');
      callback();
    } catch (error) {
      this.failed = true;
      callback(error as Error);
    }
  }

  private consume(buf: Buffer): void {
    let offset = 0;
    while (offset < buf.length) {
      switch (this.state) {
        case 'chunk-header':
        case 'trailer': {
          const nl = buf.indexOf(0x0a, offset);
          const end = nl < 0 ? buf.length : nl;
          this.lineLength += end - offset;
          if (this.lineLength > MAX_LINE + 1) throw malformed('Chunk header or trailer line too long.');
          this.line.push(buf.subarray(offset, end));
          offset = end;
          if (nl < 0) break;
          offset++;
          const text = takeLine(Buffer.concat(this.line));
          this.line = [];
          this.lineLength = 0;
          if (this.state === 'chunk-header') this.onChunkHeader(text);
          else this.onTrailerLine(text);
          break;
        }
        case 'chunk-data': {
          const n = Math.min(this.remaining, buf.length - offset);
          const data = buf.subarray(offset, offset + n);
          offset += n;
          this.remaining -= n;
          if (this.signed) {
            this.chunkHash.update(data);
            this.held.push(data);
          } else {
            this.push(data);
          }
          if (this.remaining === 0) this.state = 'chunk-end';
          break;
        }
        case 'chunk-end': {
          if (buf[offset] !== CRLF[this.crlfSeen]) throw malformed('Chunk data is not followed by CRLF.');
          offset++;
          if (++this.crlfSeen === 2) {
            this.crlfSeen = 0;
            this.endChunk();
          }
          break;
        }
        case 'done':
          throw malformed('Unexpected data after the end of the chunked body.');
      }
    }
  }

  private onChunkHeader(line: string): void {
    const [sizeText, ...extensions] = line.split(';');
    if (!/^[0-9a-fA-F]{1,16}$/.test(sizeText))
      throw malformed(`Invalid chunk size "${sizeText.slice(0, 32)}".`);
    const size = parseInt(sizeText, 16);
    if (size > this.maxChunkSize)
      throw malformed(`Chunk size ${size} exceeds the limit of ${this.maxChunkSize} bytes.`);
    if (this.signed) {
      const signature =
        extensions.length === 1 ? /^chunk-signature=([0-9a-f]{64})$/.exec(extensions[0]) : null;
      if (!signature) throw malformed('A signed chunk needs exactly one chunk-signature extension.');
      this.chunkSignature = signature[1];
    }
    this.checkLength(size);
    this.remaining = size;
    if (size > 0) {
      this.state = 'chunk-data';
      return;
    }
    this.verifyChunk();
    this.state = 'trailer';
  }

  private endChunk(): void {
    this.verifyChunk();
    for (const data of this.held) this.push(data);
    this.held = [];
    this.state = 'chunk-header';
  }

  private verifyChunk(): void {
    if (!this.signed) return;
    const signing = this.options.signing as ChunkSigning;
    const stringToSign = chunkStringToSign(signing, this.previousSignature, this.chunkHash.digest('hex'));
    const expected = createHmac('sha256', signing.signingKey).update(stringToSign).digest('hex');
    if (!sameSignature(expected, this.chunkSignature)) {
      throw new S3Error('SignatureDoesNotMatch', undefined, {
        extra: { StringToSign: stringToSign, SignatureProvided: this.chunkSignature },
      });
    }
    this.previousSignature = expected;
    this.chunkHash = createHash('sha256');
  }

  private checkLength(size: number): void {
    this.decodedLength += size;
    const declared = this.options.decodedContentLength;
    if (declared !== undefined && this.decodedLength > declared) {
      throw incomplete('The decoded body is longer than x-amz-decoded-content-length.');
    }
  }

  private onTrailerLine(line: string): void {
    if (line === '') return this.finish();
    if (!this.withTrailer) throw malformed('Unexpected trailer after the final chunk.');
    this.trailerBytes += line.length;
    if (this.trailerBytes > MAX_TRAILER_BYTES) throw malformed('Trailers too large.');
    const colon = line.indexOf(':');
    if (colon <= 0) throw malformed('Malformed trailer line.');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'x-amz-trailer-signature') {
      if (!this.signed || this.trailerSignature !== undefined)
        throw malformed('Unexpected x-amz-trailer-signature.');
      this.trailerSignature = value;
      return;
    }
    if (this.trailerSignature !== undefined) throw malformed('Trailer after x-amz-trailer-signature.');
    const expected = this.options.expectedTrailers;
    if (expected && !expected.includes(name))
      throw malformed(`Trailer ${name} was not declared in x-amz-trailer.`);
    if (name in this.trailers) throw malformed(`Repeated trailer ${name}.`);
    this.trailers[name] = value;
    this.trailerLines.push(`${name}:${value}\n`);
  }

  private finish(): void {
    if (this.withTrailer && this.signed) {
      if (this.trailerSignature === undefined) throw malformed('Missing x-amz-trailer-signature.');
      const signing = this.options.signing as ChunkSigning;
      const stringToSign = trailerStringToSign(signing, this.previousSignature, this.trailerLines.join(''));
      const expected = createHmac('sha256', signing.signingKey).update(stringToSign).digest('hex');
      if (!sameSignature(expected, this.trailerSignature)) {
        throw new S3Error('SignatureDoesNotMatch', undefined, {
          extra: { StringToSign: stringToSign, SignatureProvided: this.trailerSignature },
        });
      }
    }
    const missing = (this.options.expectedTrailers ?? []).filter((name) => !(name in this.trailers));
    if (missing.length > 0) throw incomplete(`Missing trailer ${missing.join(', ')}.`);
    const declared = this.options.decodedContentLength;
    if (declared !== undefined && this.decodedLength !== declared) {
      throw incomplete(
        `The decoded body has ${this.decodedLength} bytes, x-amz-decoded-content-length says ${declared}.`,
      );
    }
    this.state = 'done';
  }
}

/** A line without its LF and optional CR; bytes are latin1 since framing is ASCII. */
function takeLine(bytes: Buffer): string {
  const end = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
  return bytes.toString('latin1', 0, end);
}

function malformed(message: string): S3Error {
  return new S3Error('InvalidRequest', message);
}

function incomplete(message: string): S3Error {
  return new S3Error('IncompleteBody', message);
}
