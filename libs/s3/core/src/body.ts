import { pipeline } from 'stream';
import type { Readable } from 'stream';
import type { BlockManager, StoredBody } from '@ostore/storage/blocks';
import type { BodyVerifier, ChecksumAlgorithm } from './api';
import { BodyDigests, DigestTap } from './checksums';

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
): Promise<{ stored: StoredBody; digests: BodyDigests }> {
  const tap = new DigestTap(algorithms ?? []);
  // pipeline forwards a body error to the tap, so writeStream sees it and discards its blocks
  pipeline(body, tap, () => undefined);
  let stored: StoredBody;
  try {
    stored = await blocks.writeStream(tap);
  } catch (e) {
    // stop reading the request body (the pipeline destroys it with the tap)
    tap.destroy();
    throw e;
  }
  const digests = tap.result();
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
