import { finished, Readable, Transform } from 'stream';
import type { BlockManager, StoredBody } from '@ostore/storage/blocks';
import { sealBuffer, sealStream } from '@ostore/s3/crypto';
import type { BodyVerifier, ChecksumAlgorithm } from './api';
import { BodyDigests, DigestTap } from './checksums';

/**
 * `body` piped into `tap` with stream.pipeline's error handling, without stream.pipeline: Node 20's
 * pipeline makes an AbortController per call and aborts it when done, building a DOMException
 * (with its stack) — about 5 % of the gateway's CPU on a 4 KiB PUT. As with pipeline, an error or
 * a premature end of the body (client gone) destroys the tap, so its reader sees the error, and a
 * tap destroyed before the body ended destroys the body (we stop reading the request).
 */
function feed(body: Readable, tap: Transform): void {
  finished(body, (err) => {
    if (err) tap.destroy(err);
  });
  finished(tap, () => {
    if (!body.readableEnded && !body.destroyed) body.destroy();
  });
  body.pipe(tap);
}

/** `source` sealed with `dataKey` (see @ostore/s3/crypto), or as is without a key; errors carried through. */
function sealed(source: Readable, dataKey: Buffer | undefined): Readable {
  if (!dataKey) return source;
  const seal = sealStream(dataKey);
  finished(source, (err) => {
    if (err) seal.destroy(err);
  });
  return source.pipe(seal);
}

/** What was stored for a body sealed with a data key: its plaintext size, never the block manager's MD5 (of the sealed bytes). */
function plainView(stored: StoredBody, size: number, dataKey: Buffer | undefined): StoredBody {
  return dataKey ? { blocks: stored.blocks, size } : stored;
}

/**
 * Streams a body into blocks while digesting it (MD5 plus the requested checksums), then lets the
 * caller verify the digests before anything refers to the blocks; on any failure the blocks are
 * discarded (they were only in flight) and the error is rethrown.
 */
export async function storeBody(
  blocks: BlockManager,
  body: Readable,
  algorithms: ChecksumAlgorithm[] | undefined,
  verify: BodyVerifier | undefined,
  dataKey?: Buffer,
): Promise<{ stored: StoredBody; digests: BodyDigests }> {
  // A manager that digests bodies hashes off the event loop: the tap then skips its MD5 (unless
  // the manager sees sealed bytes).
  const tap = new DigestTap(algorithms ?? [], { md5: !blocks.digestsBody || dataKey !== undefined });
  // feed forwards a body error to the tap, so writeStream sees it and discards its blocks
  feed(body, tap);
  let stored: StoredBody;
  try {
    stored = await blocks.writeStream(sealed(tap, dataKey));
  } catch (e) {
    // stop reading the request body (feed destroys it with the tap)
    tap.destroy();
    throw e;
  }
  const result = tap.result();
  stored = plainView(stored, result.size, dataKey);
  const digests = withStoredMd5(result, stored);
  if (verify) {
    try {
      await verify({ md5: digests.md5, size: digests.size, checksums: digests.checksums });
    } catch (e) {
      await blocks.discard(stored.blocks).catch(() => undefined);
      throw e;
    }
  }
  return { stored, digests };
}

/** The tap's digests, with the MD5 the block manager computed when it did. */
function withStoredMd5(digests: BodyDigests, stored: StoredBody): BodyDigests {
  if (stored.md5) return { ...digests, md5: stored.md5 };
  if (digests.md5.length === 0) throw new Error('the block manager promised the body MD5 but returned none');
  return digests;
}

/** A received body: in blocks (`stored.blocks`), or whole in memory (`inline`) when small enough. */
export interface ReceivedBody {
  stored: StoredBody;
  digests: BodyDigests;
  /**
   * The whole body when it has at most inlineMaxBytes bytes; then `stored.blocks` is empty. An
   * empty body is an empty buffer (unless encrypted: then absent), so that an empty object, a
   * folder marker `dir/` say, is stored like any small one: in its row, without a manifest to
   * write on PUT, read on GET or delete on removal.
   */
  inline?: Buffer;
}

/**
 * Like storeBody, but a body that ends within `inlineMaxBytes` is kept in memory instead of being
 * written to the block store (no block, no in-flight record, no LWT): the caller stores it inline
 * with the version's metadata. The body is read until it ends or exceeds the threshold, so at most
 * `inlineMaxBytes` (+ one chunk) is held; a larger body continues into blocks, the bytes already
 * read first. Verification happens before the caller commits anything, in both cases.
 */
export async function receiveBody(
  blocks: BlockManager,
  body: Readable,
  algorithms: ChecksumAlgorithm[] | undefined,
  verify: BodyVerifier | undefined,
  inlineMaxBytes: number,
  dataKey?: Buffer,
): Promise<ReceivedBody> {
  if (inlineMaxBytes <= 0) return storeBody(blocks, body, algorithms, verify, dataKey);
  const tap = new DigestTap(algorithms ?? []);
  feed(body, tap);
  const it = tap[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  const head: Buffer[] = [];
  let length = 0;
  let ended = false;
  try {
    while (length <= inlineMaxBytes) {
      const r = await it.next();
      if (r.done) {
        ended = true;
        break;
      }
      head.push(r.value);
      length += r.value.length;
    }
  } catch (e) {
    tap.destroy();
    throw e;
  }
  if (ended) {
    const digests = tap.result();
    if (verify) await verify({ md5: digests.md5, size: digests.size, checksums: digests.checksums });
    const whole = Buffer.concat(head, length);
    // an encrypted empty body is not inline (see ReceivedBody.inline)
    const inline = !dataKey ? whole : length > 0 ? sealBuffer(dataKey, whole) : undefined;
    return { stored: { blocks: [], size: length }, digests, ...(inline ? { inline } : {}) };
  }
  async function* replay(): AsyncGenerator<Buffer> {
    while (head.length > 0) yield head.shift()!;
    for (;;) {
      const r = await it.next();
      if (r.done) return;
      yield r.value;
    }
  }
  // writeStream sees every byte (the head replayed first): when it digests the body, it has the MD5.
  if (blocks.digestsBody && !dataKey) tap.dropMd5();
  let stored: StoredBody;
  try {
    stored = await blocks.writeStream(sealed(Readable.from(replay(), { objectMode: false }), dataKey));
  } catch (e) {
    tap.destroy();
    throw e;
  }
  const result = tap.result();
  stored = plainView(stored, result.size, dataKey);
  const digests = withStoredMd5(result, stored);
  if (verify) {
    try {
      await verify({ md5: digests.md5, size: digests.size, checksums: digests.checksums });
    } catch (e) {
      await blocks.discard(stored.blocks).catch(() => undefined);
      throw e;
    }
  }
  return { stored, digests };
}
