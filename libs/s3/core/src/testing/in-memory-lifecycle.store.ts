import { encodeStoredLifecycle, type LifecycleConfiguration } from '@ostore/lifecycle/rules';
import type { BlockEntry, BucketRow, UploadRow, VersionRow } from '@ostore/metastore/data-access';
import type { Clock } from '@ostore/shared/clock';
import type { AbortOutcome, ClaimOutcome, KeyRead, LifecycleStore, PreparedTransition, TransitionOutcome } from '../lifecycle/lifecycle-store';
import { makeVid, uuidString, vtsOfVid, uuidBytes } from '../version-ids';

interface KeyState {
  rows: VersionRow[];
  cond?: string;
}

export interface NewVersion {
  isNull?: boolean;
  marker?: boolean;
  ghost?: boolean;
  size?: number;
  storageClass?: string;
  /** Default: the clock's now. */
  at?: Date;
  tags?: Record<string, string>;
  /** Default: one block of `size` bytes in the 'standard' tier. */
  blocks?: BlockEntry[];
}

/**
 * A LifecycleStore in memory, for unit specs of the applier's decisions. The index entry is
 * derived from the rows (the newest row when it is an object), so a claim sees 'changed' exactly
 * when the current version moved. Hooks inject races at the points the real store is exposed to
 * them; every mutating call is logged in `calls`.
 */
export class InMemoryLifecycleStore implements LifecycleStore {
  readonly buckets = new Map<string, BucketRow>();
  readonly keys = new Map<string, KeyState>();
  readonly manifests = new Map<string, BlockEntry[]>();
  readonly tags = new Map<string, Record<string, string>>();
  readonly uploads = new Map<string, UploadRow>();
  /** Part rows per upload id (what AbortMultipartUpload releases). */
  readonly parts = new Map<string, number>();
  /** Block ids referenced by versions, per tier; released ones removed. */
  readonly releasedBlocks: string[] = [];
  readonly discardedBlocks: string[] = [];
  readonly calls: string[] = [];
  private blockSeq = 0;
  private vtsSeq = 0;

  /** Runs right before each claim (e.g. a PUT landing between the read and the claim). */
  beforeClaim?: (attempt: number) => void | Promise<void>;
  /** Runs right after a marker was committed, before the applier looks beneath it. */
  afterCommitMarker?: (marker: VersionRow) => void | Promise<void>;
  /** Makes claims answer 'busy' this many more times. */
  busyClaims = 0;
  private claims = 0;

  constructor(private readonly clock: Clock) {}

  addBucket(name: string, versioning: 'Unversioned' | 'Enabled' | 'Suspended', lifecycle?: LifecycleConfiguration): BucketRow {
    const row: BucketRow = {
      name,
      bucketId: `00000000-0000-4000-8000-${String(this.buckets.size + 1).padStart(12, '0')}`,
      ownerId: 'owner',
      ownerName: 'Owner',
      createdAt: this.clock.now(),
      location: '',
      versioning,
      acl: 'private',
      lifecycle: lifecycle === undefined ? undefined : encodeStoredLifecycle(lifecycle),
      state: 'active',
    };
    this.buckets.set(name, row);
    return row;
  }

  /** Writes a version row like a gateway would (a null row replaces the key's null rows). */
  put(bucket: BucketRow, key: string, v: NewVersion = {}): VersionRow {
    const at = v.at ?? this.clock.now();
    const vts = at.getTime() * 1000 + (this.vtsSeq++ % 1000);
    const vid = uuidString(makeVid(vts, v.marker || v.ghost ? 'marker' : 'object'));
    const slash = key.lastIndexOf('/');
    const row: VersionRow = {
      bucketId: bucket.bucketId,
      parent: key.slice(0, slash + 1),
      name: key.slice(slash + 1),
      vts,
      vid,
      isNull: v.isNull ?? bucket.versioning !== 'Enabled',
      isDeleteMarker: !!(v.marker || v.ghost),
      isGhost: !!v.ghost,
      size: v.marker || v.ghost ? 0 : (v.size ?? 10),
      etag: '"e"',
      lastModified: new Date(Math.floor(vts / 1000)),
      storageClass: v.storageClass ?? 'STANDARD',
      ownerId: 'owner',
      ownerName: 'Owner',
    };
    this.insert(bucket, key, row);
    if (!row.isDeleteMarker) {
      this.manifests.set(vid, v.blocks ?? [{ blockId: `b${++this.blockSeq}`, tier: 'standard', size: row.size }]);
      this.tags.set(vid, v.tags ?? {});
    }
    return row;
  }

  rowsOf(bucket: BucketRow, key: string): VersionRow[] {
    return [...(this.keys.get(`${bucket.bucketId}/${key}`)?.rows ?? [])];
  }

  condOf(bucket: BucketRow, key: string): string | undefined {
    return this.keys.get(`${bucket.bucketId}/${key}`)?.cond;
  }

  /** A user's DELETE ?versionId=: the row goes, nothing else checked. */
  deleteRow(bucket: BucketRow, key: string, row: VersionRow): void {
    const state = this.state(bucket, key);
    state.rows = state.rows.filter((r) => r.vid !== row.vid);
  }

  private state(bucket: { bucketId: string }, key: string): KeyState {
    const k = `${bucket.bucketId}/${key}`;
    let s = this.keys.get(k);
    if (!s) this.keys.set(k, (s = { rows: [] }));
    return s;
  }

  private insert(bucket: { bucketId: string }, key: string, row: VersionRow): void {
    const s = this.state(bucket, key);
    s.rows.push(row);
    s.rows.sort((a, b) => b.vts - a.vts || (a.vid < b.vid ? 1 : -1));
  }

  private indexRaw(bucket: { bucketId: string }, key: string): string | null {
    const newest = this.state(bucket, key).rows[0];
    return newest && !newest.isDeleteMarker ? `${newest.vid}|${newest.storageClass}` : null;
  }

  async resolveBucket(name: string): Promise<BucketRow | undefined> {
    return this.buckets.get(name);
  }

  async readKey(bucket: BucketRow, key: string, limit: number): Promise<KeyRead> {
    const rows = this.rowsOf(bucket, key);
    return { indexRaw: this.indexRaw(bucket, key), rows: rows.slice(0, limit), complete: rows.length <= limit };
  }

  async readVersion(bucket: BucketRow, key: string, vid: string): Promise<VersionRow | undefined> {
    const rows = this.rowsOf(bucket, key);
    return vid === 'null' ? rows.find((r) => r.isNull) : rows.find((r) => r.vid === vid);
  }

  async readTags(vids: string[]): Promise<Map<string, Record<string, string>>> {
    return new Map(vids.map((v) => [v, this.tags.get(v) ?? {}]));
  }

  async claim(bucket: BucketRow, key: string, expectedRaw: string | null, token: string): Promise<ClaimOutcome> {
    await this.beforeClaim?.(this.claims++);
    const s = this.state(bucket, key);
    if (this.busyClaims > 0) {
      this.busyClaims--;
      this.calls.push('claim:busy');
      return 'busy';
    }
    if (s.cond) return 'busy';
    if (this.indexRaw(bucket, key) !== expectedRaw) {
      this.calls.push('claim:changed');
      return 'changed';
    }
    s.cond = token;
    this.calls.push('claim');
    return 'claimed';
  }

  async release(bucket: BucketRow, key: string, token: string): Promise<void> {
    const s = this.state(bucket, key);
    if (s.cond === token) s.cond = undefined;
    this.calls.push('release');
  }

  newMarkerId(): { vts: number; vid: string } {
    const vts = this.clock.nowMs() * 1000 + (this.vtsSeq++ % 1000);
    return { vts, vid: uuidString(makeVid(vts, 'marker')) };
  }

  async commitMarker(
    bucket: BucketRow,
    key: string,
    marker: { vid: string; kind: 'marker' | 'ghost'; isNull: boolean },
  ): Promise<VersionRow> {
    const vts = vtsOfVid(uuidBytes(marker.vid));
    const slash = key.lastIndexOf('/');
    const row: VersionRow = {
      bucketId: bucket.bucketId,
      parent: key.slice(0, slash + 1),
      name: key.slice(slash + 1),
      vts,
      vid: marker.vid,
      isNull: marker.isNull,
      isDeleteMarker: true,
      isGhost: marker.kind === 'ghost',
      size: 0,
      etag: '',
      lastModified: new Date(Math.floor(vts / 1000)),
      storageClass: 'STANDARD',
      ownerId: bucket.ownerId,
      ownerName: bucket.ownerName,
    };
    this.insert(bucket, key, row);
    this.calls.push(`commit:${marker.kind}${marker.isNull ? ':null' : ''}`);
    await this.afterCommitMarker?.(row);
    return row;
  }

  async newestRows(bucket: BucketRow, key: string, limit: number): Promise<VersionRow[]> {
    return this.rowsOf(bucket, key).slice(0, limit);
  }

  async rowsBelow(bucket: BucketRow, key: string, row: VersionRow, limit: number): Promise<VersionRow[]> {
    return this.rowsOf(bucket, key)
      .filter((r) => r.vts < row.vts || (r.vts === row.vts && r.vid < row.vid))
      .slice(0, limit);
  }

  async removeVersion(bucket: BucketRow, row: VersionRow): Promise<void> {
    this.deleteRow(bucket, row.parent + row.name, row);
    for (const b of this.manifests.get(row.vid) ?? []) this.releasedBlocks.push(b.blockId);
    this.manifests.delete(row.vid);
    this.calls.push(`remove:${row.isDeleteMarker ? 'marker' : 'version'}`);
  }

  async convergeNulls(bucket: BucketRow, key: string): Promise<number> {
    const nulls = this.rowsOf(bucket, key).filter((r) => r.isNull);
    for (const r of nulls.slice(1)) await this.removeVersion(bucket, r);
    this.calls.push('converge');
    return Math.max(0, nulls.length - 1);
  }

  async reconcileIndex(): Promise<void> {
    this.calls.push('reconcile');
  }

  async repairIndexAfterRemoval(): Promise<void> {
    this.calls.push('repair-index');
  }

  async prepareTransition(row: VersionRow, tier: string): Promise<PreparedTransition> {
    const old = this.manifests.get(row.vid) ?? [];
    const written: BlockEntry[] = [];
    const next = old.map((b) => {
      if (b.tier === tier) return b;
      const copy = { ...b, blockId: `b${++this.blockSeq}`, tier };
      written.push(copy);
      return copy;
    });
    this.calls.push('prepare-transition');
    return { vid: row.vid, old, next, written };
  }

  async commitTransition(
    bucket: BucketRow,
    key: string,
    row: VersionRow,
    prepared: PreparedTransition,
    storageClass: string,
  ): Promise<TransitionOutcome> {
    const current = this.rowsOf(bucket, key).find((r) => r.vid === row.vid);
    if (!current) return 'gone';
    if (current.storageClass !== row.storageClass) return 'changed';
    this.manifests.set(row.vid, prepared.next);
    for (const b of prepared.old) if (!prepared.next.includes(b)) this.releasedBlocks.push(b.blockId);
    const s = this.state(bucket, key);
    s.rows = s.rows.map((r) => (r.vid === row.vid ? { ...r, storageClass } : r));
    this.calls.push(`transition:${storageClass}`);
    return 'applied';
  }

  async discardTransition(prepared: PreparedTransition): Promise<void> {
    this.discardedBlocks.push(...prepared.written.map((b) => b.blockId));
  }

  async readUpload(_bucket: BucketRow, _key: string, uploadVid: string): Promise<UploadRow | undefined> {
    return this.uploads.get(uploadVid);
  }

  async abortUpload(_bucket: BucketRow, _key: string, uploadVid: string): Promise<AbortOutcome> {
    const row = this.uploads.get(uploadVid);
    if (!row) return 'gone';
    if (row.completingVid) return 'completing';
    this.uploads.delete(uploadVid);
    this.parts.delete(uploadVid);
    this.calls.push('abort');
    return 'aborted';
  }

  async dropLeftoverParts(_bucket: BucketRow, uploadVid: string): Promise<number> {
    const n = this.parts.get(uploadVid) ?? 0;
    this.parts.delete(uploadVid);
    if (n > 0) this.calls.push(`drop-parts:${n}`);
    return n;
  }
}
