import { AWS_TIMING, debugTiming, encodeStoredLifecycle, parseLifecycleXml } from '@ostore/lifecycle/rules';
import { encodeId } from '@ostore/metastore/data-access';
import { BucketCatalog, ScanBucket } from './bucket-catalog';
import { judgeObject, judgeUploads, needsTags, taggedVids, versionGroupOf } from './object-verdict';
import { BUCKET_ID, T0, urow, vrow } from './scan-fixtures.spec-helper';
import { ScannedObject } from './scanned-object';
import { InMemoryBucketSource } from './testing';

const DAY = 86_400_000;
const ANY = '<Rule><ID>any</ID><Filter/><Status>Enabled</Status><Expiration><Days>365</Days></Expiration></Rule>';
const config = (rules: string) => parseLifecycleXml(`<LifecycleConfiguration>${rules || ANY}</LifecycleConfiguration>`);
const bucket = (rules: string, versioning: ScanBucket['versioning'] = 'Enabled'): ScanBucket => ({
  bucketId: BUCKET_ID,
  name: 'logs',
  versioning,
  lifecycle: config(rules),
});
const object = (current: ScannedObject['current'], noncurrent: ScannedObject['noncurrent'] = [], name = 'k'): ScannedObject => ({
  token: 0n,
  bucketId: BUCKET_ID,
  parent: 'a/',
  name,
  current,
  noncurrent,
  keptAll: true,
  rows: noncurrent.length + 1,
  staleNulls: 0,
});

describe(judgeObject.name, () => {
  const now = new Date(T0);

  it('names each due version with its public id and the action the contract knows', () => {
    const b = bucket(
      '<Rule><ID>exp</ID><Filter/><Status>Enabled</Status><Expiration><Days>5</Days></Expiration>' +
        '<NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays></NoncurrentVersionExpiration></Rule>',
    );
    const cur = vrow('k', 10);
    const old = vrow('k', 20);
    const verdict = judgeObject(b, object(cur, [old]), now, AWS_TIMING, DAY);
    expect(verdict.eligible).toEqual([
      { versionId: encodeId(cur.vid), rules: [{ ruleId: 'exp', action: 'Expiration' }] },
      { versionId: encodeId(old.vid), rules: [{ ruleId: 'exp', action: 'NoncurrentVersionExpiration' }] },
    ]);
    // current due 5 days after creation, 10 days ago; the old version 1 day after 10 days ago
    expect(verdict.overdue).toBe(2);
    expect(judgeObject(b, object(cur, [old]), now, AWS_TIMING, 30 * DAY).overdue).toBe(0);
  });

  it('calls a null version "null" and a lone expired marker ExpiredObjectDeleteMarker', () => {
    const b = bucket(
      '<Rule><ID>m</ID><Filter/><Status>Enabled</Status><Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration></Rule>',
    );
    const marker = vrow('k', 3, { isDeleteMarker: true, isNull: true });
    expect(judgeObject(b, object(marker), now, AWS_TIMING, DAY)).toEqual({
      eligible: [{ versionId: 'null', rules: [{ ruleId: 'm', action: 'ExpiredObjectDeleteMarker' }] }],
      overdue: 0, // marker removals are never counted: their due time is only a lower bound
    });
  });

  it('tells a Transition from a NoncurrentVersionTransition', () => {
    const b = bucket(
      '<Rule><ID>t</ID><Filter><ObjectSizeGreaterThan>0</ObjectSizeGreaterThan></Filter><Status>Enabled</Status>' +
        '<Transition><Days>30</Days><StorageClass>GLACIER</StorageClass></Transition>' +
        '<NoncurrentVersionTransition><NoncurrentDays>30</NoncurrentDays><StorageClass>GLACIER</StorageClass></NoncurrentVersionTransition></Rule>',
    );
    const verdict = judgeObject(b, object(vrow('k', 40), [vrow('k', 80)]), now, AWS_TIMING, DAY);
    expect(verdict.eligible.map((e) => e.rules[0].action)).toEqual(['Transition', 'NoncurrentVersionTransition']);
  });

  it('judges nothing for keys no enabled rule covers, nor for a bucket without configuration', () => {
    const b = bucket('<Rule><ID>x</ID><Filter><Prefix>b/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>');
    expect(judgeObject(b, object(vrow('k', 99)), now, AWS_TIMING, 0)).toEqual({ eligible: [], overdue: 0 });
    expect(judgeObject({ ...b, lifecycle: undefined }, object(vrow('k', 99)), now, AWS_TIMING, 0)).toEqual({ eligible: [], overdue: 0 });
  });

  it('uses the tags it is given and the debug day', () => {
    const b = bucket(
      '<Rule><ID>tmp</ID><Filter><Tag><Key>tmp</Key><Value>1</Value></Tag></Filter><Status>Enabled</Status><Expiration><Days>2</Days></Expiration></Rule>',
    );
    const cur = vrow('k', 0, { lastModified: new Date(T0 - 25_000) });
    const obj = object(cur);
    expect(needsTags(b.lifecycle!, 'a/k')).toBe(true);
    expect(taggedVids(obj)).toEqual([cur.vid]);
    expect(judgeObject(b, obj, now, debugTiming(10_000), 0).eligible).toEqual([]);
    const tags = new Map([[cur.vid, { tmp: '1' }]]);
    expect(judgeObject(b, obj, now, debugTiming(10_000), 0, tags).eligible).toHaveLength(1);
    expect(judgeObject(b, obj, now, AWS_TIMING, 0, tags).eligible).toEqual([]);
  });

  it('hands the engine the current version flagged, the window after it', () => {
    const cur = vrow('k', 1);
    const group = versionGroupOf(bucket(''), { ...object(cur, [vrow('k', 2)]), keptAll: false });
    expect(group.versions.map((v) => v.isLatest)).toEqual([true, false]);
    expect(group).toMatchObject({ key: 'a/k', versioning: 'Enabled', keptAll: false });
    expect(versionGroupOf(bucket(''), object(undefined, [vrow('k', 2)])).versions.map((v) => v.isLatest)).toEqual([false]);
  });
});

describe(judgeUploads.name, () => {
  it('aborts incomplete uploads older than DaysAfterInitiation, with their public ids', () => {
    const b = bucket(
      '<Rule><ID>mpu</ID><Filter><Prefix>a/</Prefix></Filter><Status>Enabled</Status><AbortIncompleteMultipartUpload><DaysAfterInitiation>7</DaysAfterInitiation></AbortIncompleteMultipartUpload></Rule>',
    );
    const old = urow('k', new Date(T0 - 10 * DAY), { parent: 'a/' });
    const young = urow('k', new Date(T0 - 2 * DAY), { parent: 'a/' });
    const out = judgeUploads(b, { token: 0n, bucketId: BUCKET_ID, parent: 'a/', name: 'k', uploads: [old, young], keptAll: true, rows: 2 }, new Date(T0), AWS_TIMING);
    expect(out).toEqual([{ bucketId: BUCKET_ID, bucket: 'logs', key: 'a/k', uploadId: encodeId(old.uploadId), ruleId: 'mpu' }]);
  });
});

describe(BucketCatalog.name, () => {
  // stored as rows written before the format had a version (plain JSON.stringify) still are
  it('reloads for an unknown bucket at most once per interval, and reads stored configurations', async () => {
    let t = 0;
    const source = new InMemoryBucketSource([{ bucketId: 'b1', name: 'one', versioning: 'Enabled', lifecycle: JSON.stringify(config('')) }]);
    const sut = new BucketCatalog(source, 1000, () => t);
    await sut.load();
    expect((await sut.get('b1'))?.lifecycle?.rules.map((r) => r.id)).toEqual(['any']);
    expect(await sut.get('b2')).toBeUndefined();
    expect(source.loads).toBe(1);
    source.records.push({ bucketId: 'b2', name: 'two', versioning: 'Suspended', lifecycle: '{not json' });
    t = 1500;
    expect(await sut.get('b2')).toEqual({ bucketId: 'b2', name: 'two', versioning: 'Suspended', lifecycle: undefined });
    expect(sut.unreadable).toEqual(new Set(['two']));
    expect(source.loads).toBe(2);
  });

  it('reads the current stored form and sets aside a configuration that is JSON but not a valid one', async () => {
    const source = new InMemoryBucketSource([
      { bucketId: 'b1', name: 'one', versioning: 'Enabled', lifecycle: encodeStoredLifecycle(config('')) },
      { bucketId: 'b2', name: 'two', versioning: 'Enabled', lifecycle: JSON.stringify({ rules: [{ id: 'r', status: 'On' }] }) },
    ]);
    const sut = new BucketCatalog(source);
    await sut.load();
    expect(sut.peek('b1')?.lifecycle?.rules.map((r) => r.id)).toEqual(['any']);
    expect(sut.peek('b2')?.lifecycle).toBeUndefined();
    expect(sut.unreadable).toEqual(new Set(['two']));
  });
});
