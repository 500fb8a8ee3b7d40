import { createHash } from 'crypto';
import { Transform, TransformCallback } from 'stream';
import { S3Error } from '@ostore/s3/protocol';

/**
 * Passes a body through while hashing it; fails at the end with XAmzContentSHA256Mismatch when
 * the SHA-256 differs from the signed `x-amz-content-sha256`, before the consumer commits anything.
 */
export class PayloadHashVerifier extends Transform {
  private readonly hash = createHash('sha256');

  constructor(private readonly expectedHex: string) {
    super();
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.hash.update(chunk);
    cb(null, chunk);
  }

  override _flush(cb: TransformCallback): void {
    const actual = this.hash.digest('hex');
    if (actual !== this.expectedHex.toLowerCase()) {
      cb(
        new S3Error('XAmzContentSHA256Mismatch', "The provided 'x-amz-content-sha256' header does not match what was computed.", {
          extra: { ClientComputedContentSHA256: this.expectedHex, S3ComputedContentSHA256: actual },
        }),
      );
      return;
    }
    cb();
  }
}
