import { defaultNewestReadGroupSettings } from '@ostore/metastore/data-access';
import { FakeClock } from '@ostore/shared/clock/testing';
import { waitFor } from '@ostore/testing';
import type { S3Core } from '../src';
import { alice, get, harness, Harness, put, queriesOf, s3code } from './support';

/**
 * GET and HEAD of unversioned buckets: the newest-row reads of keys of one directory asked for at
 * the same time share one Cassandra read (NewestReadGroups). Each reader must still get its own
 * key's newest row, see every write acknowledged before it asked, and fail when the shared read
 * fails.
 */
describe('grouped newest-row reads of GET and HEAD, against a real Cassandra', () => {
  let h: Harness;
  beforeAll(async () => {
    // scan convergence with no memory of written keys: an overwrite leaves two null rows
    h = await harness('grouped_reads', { nullConvergence: 'scan', recentNullKeys: 0 });
    await h.core.buckets.create({ name: 'plain', owner: alice, location: '', acl: 'private' });
    await h.core.buckets.create({ name: 'kept', owner: alice, location: '', acl: 'private' });
    await h.core.buckets.setVersioning('kept', 'Enabled');
  });
  afterAll(() => h.close());

  const heads = (core: S3Core, bucket: string, keys: string[]) =>
    Promise.allSettled(keys.map((k) => core.objects.head(bucket, k)));

  it('reads the keys of one directory asked for together in one read, each reader with its own row', async () => {
    const puts = new Map<string, string>();
    for (const n of ['a', 'b', 'c', 'd']) puts.set(`dir/${n}`, (await put(h.core, 'plain', `dir/${n}`, `body ${n}`)).etag);
    await h.core.buckets.resolve('plain'); // the bucket row is cached from here on
    h.readGroups.keys.length = 0;

    const keys = ['dir/a', 'dir/b', 'dir/missing', 'dir/c', 'dir/a', 'dir/d'];
    const { result, cql } = await queriesOf(h.client, () => heads(h.core, 'plain', keys));
    expect(cql).toHaveLength(1);
    expect(cql[0]).toMatch(/FROM versions WHERE .* name IN \?/);
    expect(h.readGroups.keys).toEqual([5]);
    result.forEach((r, i) => {
      if (keys[i] === 'dir/missing') {
        expect(r.status).toBe('rejected');
        return;
      }
      expect(r.status).toBe('fulfilled');
      const v = (r as PromiseFulfilledResult<Awaited<ReturnType<S3Core['objects']['head']>>>).value;
      expect({ key: v.key, etag: v.etag }).toEqual({ key: keys[i], etag: puts.get(keys[i]) });
    });
    // the key asked for twice: equal versions, not one object shared by two requests
    const [first, again] = [result[0], result[4]].map((r) => (r as PromiseFulfilledResult<unknown>).value);
    expect(again).toEqual(first);
    expect(again).not.toBe(first);
    await expect(s3code(h.core.objects.head('plain', 'dir/missing'))).resolves.toMatchObject({ code: 'NoSuchKey' });
    // and the bodies served from those rows are each key's own
    expect(await Promise.all(['dir/b', 'dir/c', 'dir/d'].map((k) => get(h.core, 'plain', k)))).toEqual(['body b', 'body c', 'body d']);
  });

  it('reads other directories, other buckets and versioned buckets on their own', async () => {
    await put(h.core, 'plain', 'other/x', 'x');
    await put(h.core, 'kept', 'dir/a', 'kept a');
    await put(h.core, 'kept', 'dir/b', 'kept b');
    await Promise.all([h.core.buckets.resolve('plain'), h.core.buckets.resolve('kept')]);
    h.readGroups.keys.length = 0;

    const { result, cql } = await queriesOf(h.client, async () => [
      ...(await heads(h.core, 'plain', ['dir/a', 'other/x', 'dir/b'])),
      ...(await heads(h.core, 'kept', ['dir/a', 'dir/b'])),
    ]);
    expect(result.map((r) => r.status)).toEqual(Array(5).fill('fulfilled'));
    expect(cql.filter((q) => / IN \?/.test(q))).toHaveLength(1); // plain dir/: a and b
    expect(cql.filter((q) => /name = \? LIMIT \?/.test(q))).toHaveLength(3); // plain other/x; kept a, b
    expect(h.readGroups.keys).toEqual([2, 1]); // versioned buckets' reads do not go through the groups
  });

  it('sees every write acknowledged before the read was asked for', async () => {
    const core2 = await h.another(); // a second gateway writes, this one reads
    for (let round = 0; round < 20; round++) {
      const written = await put(core2, 'plain', 'dir/hot', `round ${round}`);
      const [hot, other] = await Promise.all([h.core.objects.head('plain', 'dir/hot'), h.core.objects.head('plain', 'dir/a')]);
      expect({ round, etag: hot.etag, version: hot.versionId }).toEqual({ round, etag: written.etag, version: written.versionId });
      expect(other.key).toBe('dir/a');
    }
  });

  it('reads a key again alone when the grouped read reached its row limit before it', async () => {
    const tight = await harness('grouped_reads_tight', {
      nullConvergence: 'scan',
      recentNullKeys: 0,
      newestReadGroups: { ...defaultNewestReadGroupSettings, rowsPerKey: 1 },
    });
    try {
      await tight.core.buckets.create({ name: 'over', owner: alice, location: '', acl: 'private' });
      await put(tight.core, 'over', 'd/a', 'a1');
      const newestA = await put(tight.core, 'over', 'd/a', 'a2'); // left to the scan: d/a has two null rows
      const b = await put(tight.core, 'over', 'd/b', 'b1');
      expect((await tight.ms.versions.nullRows((await tight.core.buckets.resolve('over')).bucketId, 'd/', 'a')).length).toBe(2);

      // the limit (2 rows for 2 keys) is spent on d/a's two rows: d/b is read again alone
      const [a, bb] = await Promise.all([tight.core.objects.head('over', 'd/a'), tight.core.objects.head('over', 'd/b')]);
      expect([a.versionId, a.etag]).toEqual([newestA.versionId, newestA.etag]);
      expect(bb.etag).toBe(b.etag);
      expect(tight.readGroups.fallbacks).toBe(1);
    } finally {
      await tight.close();
    }
  });

  it('gives every reader of a grouped read its error when the read fails', async () => {
    await h.core.buckets.resolve('plain'); // cached: the failing request is the grouped read
    const spy = jest.spyOn(h.client, 'execute').mockImplementationOnce(() => Promise.reject(new Error('node down')));
    try {
      const settled = await heads(h.core, 'plain', ['dir/a', 'dir/b', 'dir/c']);
      expect(settled.map((r) => (r.status === 'rejected' ? String(r.reason) : 'fulfilled'))).toEqual(Array(3).fill('Error: node down'));
    } finally {
      spy.mockRestore();
    }
    // nothing stays pending or broken: the next reads are served
    expect((await heads(h.core, 'plain', ['dir/a', 'dir/b'])).map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
  });

  it('sends the keys of a directory with a read in flight together once that read is answered', async () => {
    const one = await harness('grouped_reads_one', { newestReadGroups: { ...defaultNewestReadGroupSettings, maxInFlight: 1 } });
    try {
      await one.core.buckets.create({ name: 'busy', owner: alice, location: '', acl: 'private' });
      for (const k of ['q/a', 'q/b', 'q/c', 'q/d', 'r/e']) await put(one.core, 'busy', k, k);
      await one.core.buckets.resolve('busy');
      one.readGroups.keys.length = 0;
      // q/a's read is held in flight until released
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const execute = one.client.execute.bind(one.client);
      const spy = jest.spyOn(one.client, 'execute').mockImplementationOnce(async (...args: Parameters<typeof execute>) => {
        await gate;
        return execute(...args);
      });
      try {
        const a = one.core.objects.head('busy', 'q/a');
        await waitFor('the read of q/a in flight', async () => (spy.mock.calls.length === 1 ? true : undefined), 10_000, 1);
        const b = one.core.objects.head('busy', 'q/b');
        await new Promise((r) => setTimeout(r, 5)); // later turns of the loop
        const cd = [one.core.objects.head('busy', 'q/c'), one.core.objects.head('busy', 'q/d')];
        const e = one.core.objects.head('busy', 'r/e'); // another directory: not held
        expect((await e).key).toBe('r/e');
        expect(one.readGroups.keys).toEqual([1, 1]); // q/b, q/c and q/d wait
        release();
        expect((await Promise.all([a, b, ...cd])).map((v) => v.key)).toEqual(['q/a', 'q/b', 'q/c', 'q/d']);
        expect(one.readGroups.keys).toEqual([1, 1, 3]);
      } finally {
        release();
        spy.mockRestore();
      }
    } finally {
      await one.close();
    }
  });

  it('holds the reads of a busy directory for lingerMs and sends them together; a quiet one at once', async () => {
    const clock = new FakeClock(Date.now()); // its monotonic time stands still unless advanced
    const slow = await harness('grouped_reads_linger', { newestReadGroups: { ...defaultNewestReadGroupSettings, lingerMs: 300 } }, clock);
    const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
    try {
      await slow.core.buckets.create({ name: 'lings', owner: alice, location: '', acl: 'private' });
      for (const k of ['l/a', 'l/b', 'l/c']) await put(slow.core, 'lings', k, k);
      await slow.core.buckets.resolve('lings'); // cached for 2 s of the fake clock
      clock.advance(400);
      slow.readGroups.keys.length = 0;
      expect((await slow.core.objects.head('lings', 'l/a')).key).toBe('l/a'); // quiet: sent at once
      expect(slow.readGroups.keys).toEqual([1]);

      // asked for at the same (monotonic) instant as l/a: the directory is busy
      const b = slow.core.objects.head('lings', 'l/b');
      await pause(30);
      const c = slow.core.objects.head('lings', 'l/c');
      await pause(30);
      expect(slow.readGroups.keys).toEqual([1]); // both still wait
      expect((await Promise.all([b, c])).map((v) => v.key)).toEqual(['l/b', 'l/c']);
      expect(slow.readGroups.keys).toEqual([1, 2]);

      clock.advance(400); // quiet again: sent within a few turns of the loop, not after lingerMs
      const quiet = slow.core.objects.head('lings', 'l/c');
      for (let turn = 0; turn < 50 && slow.readGroups.keys.length < 3; turn++) await new Promise((r) => setImmediate(r));
      expect(slow.readGroups.keys).toEqual([1, 2, 1]);
      expect((await quiet).key).toBe('l/c');
    } finally {
      await slow.close();
    }
  });

  it('sends a group as soon as it holds maxKeys keys', async () => {
    const small = await harness('grouped_reads_small', { newestReadGroups: { ...defaultNewestReadGroupSettings, maxKeys: 2 } });
    try {
      await small.core.buckets.create({ name: 'few', owner: alice, location: '', acl: 'private' });
      const keys = ['k/1', 'k/2', 'k/3', 'k/4', 'k/5'];
      for (const k of keys) await put(small.core, 'few', k, k);
      small.readGroups.keys.length = 0;
      const got = await Promise.all(keys.map((k) => small.core.objects.head('few', k)));
      expect(got.map((v) => v.key)).toEqual(keys);
      expect(small.readGroups.keys).toEqual([2, 2, 1]);
    } finally {
      await small.close();
    }
  });
});
