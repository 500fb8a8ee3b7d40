import { createHash } from 'crypto';
import { S3Core, splitKey } from '../src';
import { folderRowsOf } from '../src/keys';
import { makeVid, uuidString } from '../src/version-ids';
import { alice, drain, harness, Harness, put, refsOf } from './support';

const KEYS = ['k', 'd/k', 'd/e/k', 'd/e/', 'z-1'];

/**
 * Many writers (three "gateways", each with its own session and version clock) overwrite and
 * delete the same keys concurrently, without Paxos. Afterwards every view must agree: the
 * `objects` row exists iff the newest version row (by vts) is not a marker and then names it,
 * HEAD serves it, ListObjects / ListObjectVersions show it, at most one null version survives,
 * every surviving version has its folder rows and readable, still-referenced blocks.
 */
describe('concurrent writers of the same keys converge (real Cassandra)', () => {
  let h: Harness;
  let gateways: S3Core[];
  beforeAll(async () => {
    h = await harness('concurrency');
    gateways = [h.core, await h.another(), await h.another()];
  });
  afterAll(() => h.close());

  async function storm(bucket: string, ops: number, permanentDeletes: boolean, batches = false): Promise<void> {
    const versionIds: Record<string, string[]> = {};
    let next = 0;
    const worker = async (w: number) => {
      for (;;) {
        const i = next++;
        if (i >= ops) return;
        const gw = gateways[(i + w) % gateways.length];
        const key = KEYS[(i * 7 + w) % KEYS.length];
        const dice = (i * 37 + w * 11) % 10;
        if (dice < 6) {
          const res = await put(gw, bucket, key, `${key}#${i}`.repeat(1 + (i % 3) * 4000));
          (versionIds[key] ??= []).push(res.versionId);
        } else if (batches && dice < 9) {
          // DeleteObjects of several keys (two of one directory, a repeated one) racing the others
          const more = [KEYS[(i + 1) % KEYS.length], KEYS[(i + 2) % KEYS.length], key];
          const out = await gw.objects.deleteMany(bucket, alice, [key, ...more].map((k) => ({ key: k })));
          expect(out.filter((o) => !o.ok)).toEqual([]);
        } else if (dice < 9 || !permanentDeletes) {
          await gw.objects.delete(bucket, key, alice);
        } else {
          const ids = versionIds[key] ?? [];
          if (ids.length) await gw.objects.delete(bucket, key, alice, ids[(i * 13) % ids.length]);
        }
      }
    };
    await Promise.all(Array.from({ length: 12 }, (_, w) => worker(w)));
  }

  async function expectConsistent(bucket: string): Promise<void> {
    // the index is repaired for writers a repair may have hidden once every repair's delayed
    // re-check has run (VersionStore: "who checks the index")
    await Promise.all(gateways.map((g) => g.store.indexRechecks.settled()));
    const b = await h.core.buckets.get(bucket);
    const listed = await h.core.objects.list({ bucket, maxKeys: 1000 });
    const versions = await h.core.objects.listVersions({ bucket, maxKeys: 1000 });
    for (const key of KEYS) {
      const { parent, name } = splitKey(key);
      const rows = await h.ms.versions.newest(b.bucketId, parent, name, 1000);
      const newest = rows[0];
      const index = await h.ms.objects.get(b.bucketId, parent, name);
      const nulls = await h.ms.versions.nullRows(b.bucketId, parent, name);
      const state = { key, newest: newest && { vid: newest.vid, marker: newest.isDeleteMarker }, index: index?.entry.vid };
      expect(nulls.length).toBeLessThanOrEqual(1);
      const current = newest && !newest.isDeleteMarker ? newest : undefined;
      expect(state).toEqual({ ...state, index: current?.vid });
      const inList = listed.contents.find((c) => c.key === key);
      expect(inList?.manifestId).toBe(current?.vid);
      if (current) {
        const v = await h.core.objects.head(bucket, key);
        expect(v.manifestId).toBe(current.vid);
        const data = await drain(await h.core.objects.openBody(v));
        expect(`"${createHash('md5').update(data).digest('hex')}"`).toBe(v.etag);
        for (const f of folderRowsOf(key)) {
          expect(await h.ms.objectFolders.page(b.bucketId, f.parent, { gte: f.name, lt: `${f.name}\u0000` }, 1)).toEqual([f.name]);
        }
      } else {
        await expect(h.core.objects.head(bucket, key)).rejects.toMatchObject({ code: 'NoSuchKey' });
      }
      // ListObjectVersions shows every row but ghosts and shadowed nulls, newest first
      const visible = rows.filter((r) => !r.isGhost && (!r.isNull || r.vid === nulls[0]?.vid));
      const listedVersions = versions.versions.filter((v) => v.key === key);
      expect(listedVersions.map((v) => v.manifestId)).toEqual(visible.map((r) => r.vid));
      expect(listedVersions.filter((v) => v.isLatest).map((v) => v.manifestId)).toEqual(
        visible[0] && visible[0].vid === newest?.vid ? [newest.vid] : [],
      );
      if (visible.length > 0)
        for (const f of folderRowsOf(key))
          expect(await h.ms.versionFolders.page(b.bucketId, f.parent, { gte: f.name, lt: `${f.name}\u0000` }, 1)).toEqual([f.name]);
      for (const r of visible.filter((x) => !x.isDeleteMarker)) {
        const blocks = await h.ms.versions.readBlocks(r.vid);
        for (const blk of blocks) expect(await refsOf(h.client, blk.blockId)).toContain(`v:${r.vid}`);
      }
    }
  }

  it('in an unversioned bucket (null versions and ghosts)', async () => {
    await h.core.buckets.create({ name: 'race-plain', owner: alice, location: '', acl: 'private' });
    await storm('race-plain', 240, false);
    await expectConsistent('race-plain');
  });

  it('in a versioned bucket, with permanent deletes of versions', async () => {
    await h.core.buckets.create({ name: 'race-versioned', owner: alice, location: '', acl: 'private' });
    await h.core.buckets.setVersioning('race-versioned', 'Enabled');
    await storm('race-versioned', 240, true);
    await expectConsistent('race-versioned');
  });

  it('in a suspended bucket (null versions among real ones)', async () => {
    await h.core.buckets.create({ name: 'race-suspended', owner: alice, location: '', acl: 'private' });
    await h.core.buckets.setVersioning('race-suspended', 'Enabled');
    await storm('race-suspended', 60, false);
    await h.core.buckets.setVersioning('race-suspended', 'Suspended');
    await storm('race-suspended', 200, true);
    await expectConsistent('race-suspended');
  });

  it.each(['Unversioned', 'Enabled', 'Suspended'] as const)('with DeleteObjects batches among the writers, %s bucket', async (mode) => {
    const bucket = `race-batch-${mode.toLowerCase()}`;
    await h.core.buckets.create({ name: bucket, owner: alice, location: '', acl: 'private' });
    if (mode !== 'Unversioned') await h.core.buckets.setVersioning(bucket, 'Enabled');
    if (mode === 'Suspended') {
      await storm(bucket, 40, false);
      await h.core.buckets.setVersioning(bucket, 'Suspended');
    }
    await storm(bucket, 240, mode !== 'Unversioned', true);
    await expectConsistent(bucket);
  });

  it('equal version timestamps: a marker beats an object, the greater vid beats the other, in both tables', async () => {
    await h.core.buckets.create({ name: 'race-ties', owner: alice, location: '', acl: 'private' });
    await h.core.buckets.setVersioning('race-ties', 'Enabled');
    const bucket = await h.core.buckets.get('race-ties').then((x) => h.ms.buckets.get(x.name));
    const vts = Date.now() * 1000;
    const objects = [uuidString(makeVid(vts, 'object')), uuidString(makeVid(vts, 'object'))];
    const marker = uuidString(makeVid(vts, 'marker'));
    const spec = { bucket: bucket!, isNull: false, owner: alice, size: 0, etag: '"x"', blocks: [] };
    // two objects with the same vts, committed in both orders by two gateways
    await Promise.all([
      gateways[0].store.commit({ ...spec, key: 'tie/objects', kind: 'object', vid: objects[0] }),
      gateways[1].store.commit({ ...spec, key: 'tie/objects', kind: 'object', vid: objects[1] }),
    ]);
    const greater = [...objects].sort().reverse()[0];
    const { parent, name } = splitKey('tie/objects');
    expect((await h.ms.versions.newest(bucket!.bucketId, parent, name, 1))[0].vid).toBe(greater);
    expect((await h.ms.objects.get(bucket!.bucketId, parent, name))?.entry.vid).toBe(greater);
    // an object and a marker with the same vts: the marker is newest and the index row is gone
    await Promise.all([
      gateways[2].store.commit({ ...spec, key: 'tie/marker', kind: 'marker', vid: marker }),
      gateways[0].store.commit({ ...spec, key: 'tie/marker', kind: 'object', vid: uuidString(makeVid(vts, 'object')) }),
    ]);
    const m = splitKey('tie/marker');
    expect((await h.ms.versions.newest(bucket!.bucketId, m.parent, m.name, 1))[0].vid).toBe(marker);
    expect(await h.ms.objects.get(bucket!.bucketId, m.parent, m.name)).toBeUndefined();
  });
});
