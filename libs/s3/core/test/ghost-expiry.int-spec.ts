import type { NullRowRef } from '@ostore/metastore/data-access';
import { splitKey } from '../src';
import { alice, harness, Harness, put, s3code } from './support';

const GHOST_TTL_SECONDS = 1;
const DEADLINE_MS = 20_000;

/**
 * An unversioned DELETE writes a ghost (a null row with a TTL) and then converges the key's null
 * rows: the object's older null row goes. If the process stalls past the ghost's TTL between its
 * mutation and that read, the read no longer finds the ghost; the object's row must still go, or
 * the deleted object would be served again (GET reads `versions`) while listings (the `objects`
 * index) hide it. The stall is made real here: the convergence read is held until Cassandra has
 * expired the ghost.
 */
describe('a ghost that expires before its null convergence reads (real Cassandra)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await harness('ghostexpiry', { ghostTtlSeconds: GHOST_TTL_SECONDS });
    await h.core.buckets.create({ name: 'ghost-expiry', owner: alice, location: '', acl: 'private' });
  });
  afterAll(() => h.close());

  /** Until none of `names`' null rows in `parent` is a ghost (Cassandra expired it), by polling. */
  async function ghostsExpired(bucketId: string, parent: string, names: readonly string[]): Promise<void> {
    const deadline = Date.now() + DEADLINE_MS;
    for (;;) {
      const rows = await h.client.execute('SELECT name, is_ghost FROM null_versions WHERE bucket_id = ? AND parent = ? AND name IN ?', [
        bucketId,
        parent,
        [...names],
      ]);
      if (!rows.rows.some((r) => r['is_ghost'])) return;
      if (Date.now() > deadline) throw new Error(`ghosts of ${names.join(', ')} still there after ${DEADLINE_MS} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Holds the convergence reads (both forms) until the ghosts they follow have expired. */
  function stallConvergenceReads(): { restore(): void; held: () => number } {
    const versions = h.ms.versions;
    const { nullRows, nullRowsOfNames } = versions;
    let held = 0;
    versions.nullRows = async (bucketId: string, parent: string, name: string): Promise<NullRowRef[]> => {
      held++;
      await ghostsExpired(bucketId, parent, [name]);
      return nullRows.call(versions, bucketId, parent, name);
    };
    versions.nullRowsOfNames = async (bucketId: string, parent: string, names: readonly string[]) => {
      held++;
      await ghostsExpired(bucketId, parent, names);
      return nullRowsOfNames.call(versions, bucketId, parent, names);
    };
    return {
      restore: () => {
        versions.nullRows = nullRows;
        versions.nullRowsOfNames = nullRowsOfNames;
      },
      held: () => held,
    };
  }

  async function expectGone(bucketId: string, key: string): Promise<void> {
    const { parent, name } = splitKey(key);
    expect((await s3code(h.core.objects.head('ghost-expiry', key))).code).toBe('NoSuchKey');
    expect(await h.ms.versions.nullRows(bucketId, parent, name)).toEqual([]);
    expect(await h.ms.versions.newest(bucketId, parent, name)).toEqual([]);
    expect((await h.core.objects.listVersions({ bucket: 'ghost-expiry', prefix: key, maxKeys: 10 })).versions).toEqual([]);
  }

  it('DeleteObject: the object row goes although the read no longer sees the ghost', async () => {
    const { bucketId } = await h.core.buckets.get('ghost-expiry');
    await put(h.core, 'ghost-expiry', 'one/x.txt', 'body');
    const stall = stallConvergenceReads();
    try {
      await h.core.objects.delete('ghost-expiry', 'one/x.txt', alice);
    } finally {
      stall.restore();
    }
    expect(stall.held()).toBe(1);
    await expectGone(bucketId, 'one/x.txt');
  });

  it('DeleteObjects: the same for every key of a directory', async () => {
    const { bucketId } = await h.core.buckets.get('ghost-expiry');
    const keys = ['many/a', 'many/b', 'many/c'];
    for (const k of keys) await put(h.core, 'ghost-expiry', k, `body of ${k}`);
    const stall = stallConvergenceReads();
    let out;
    try {
      out = await h.core.objects.deleteMany('ghost-expiry', alice, keys.map((key) => ({ key })));
    } finally {
      stall.restore();
    }
    expect(out.every((o) => o.ok)).toBe(true);
    expect(stall.held()).toBe(1);
    for (const k of keys) await expectGone(bucketId, k);
  });
});
