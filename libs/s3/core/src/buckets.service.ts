import { randomUUID } from 'crypto';
import type { Clock } from '@ostore/shared/clock';
import type { BucketRow, Metastore } from '@ostore/metastore/data-access';
import { S3DomainError } from './api';
import type { Bucket, BucketAccessSettings, BucketsService, OwnedBucketsPage, Owner, StoredAcl, Versioning } from './api';
import type { BucketResolver } from './bucket-resolver';
import { noSuchBucket, s3err } from './errors';
import { versionsSource } from './listing/sources';
import { TreeWalker } from './listing/tree-walker';
import { versionKeyFilter } from './listing/version-filter';
import type { BucketKey } from './version-data';

function tooManyBuckets(): Error {
  return s3err('TooManyBuckets', 'You have attempted to create more buckets than allowed');
}

const BUCKET_NAME_RE = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

export function bucketOf(row: BucketRow): Bucket {
  return {
    name: row.name,
    bucketId: row.bucketId,
    owner: { id: row.ownerId, displayName: row.ownerName },
    createdAt: row.createdAt,
    location: row.location,
    versioning: row.versioning as Versioning,
    acl: row.acl,
    ...(row.cors ? { cors: row.cors } : {}),
    policy: row.policy,
    publicAccessBlock: row.publicAccessBlock,
    ...(row.quotaBytes === undefined ? {} : { quotaBytes: row.quotaBytes }),
    ...(row.quotaObjects === undefined ? {} : { quotaObjects: row.quotaObjects }),
    objectOwnership: row.objectOwnership,
    ...(row.encryption ? { encryption: row.encryption } : {}),
    ...(row.lifecycle ? { lifecycle: row.lifecycle } : {}),
  };
}

/** What DeleteBucket needs of the multipart service: abort a bucket's uploads in progress. */
export interface UploadsAborter {
  /** Aborts every upload in progress in the bucket; returns how many. */
  abortAll(bucket: BucketKey): Promise<number>;
}

/**
 * S3 bucket operations over the `buckets` table (see BucketsRepository for the LWT discipline);
 * bucket rows are read through the BucketResolver (and its per-process cache).
 */
/** Listing entries confirmed against their bucket rows at a time (each confirmation is one read). */
const OWNED_CONFIRM_BATCH = 100;

export class CassandraBucketsService implements BucketsService {
  constructor(
    private readonly ms: Metastore,
    private readonly clock: Clock,
    private readonly resolver: BucketResolver,
    private readonly uploads: UploadsAborter,
  ) {}

  /** The bucket row, or NoSuchBucket; possibly cached (see BucketResolver for the window). */
  resolve(name: string): Promise<BucketRow> {
    return this.resolver.resolve(name);
  }

  private fresh(name: string): Promise<BucketRow> {
    return this.resolver.fresh(name);
  }

  private invalidate(name: string): void {
    this.resolver.invalidate(name);
  }

  async create(input: { name: string; owner: Owner; location: string; acl: StoredAcl }): Promise<Bucket> {
    return (await this.insert(input)).bucket;
  }

  async createWithinLimit(input: { name: string; owner: Owner; location: string; acl: StoredAcl }, maxBuckets: number): Promise<Bucket> {
    const ownerId = input.owner.id;
    if ((await this.countOwned(ownerId)) >= maxBuckets && !(await this.ms.buckets.get(input.name))) throw tooManyBuckets();
    const { bucket, created } = await this.insert(input);
    if (created && (await this.countOwned(ownerId)) > maxBuckets) {
      // a racing create of the same owner passed the check too. Every racer that counts more
      // than the limit after its own insert takes its bucket back: of two racers, the later
      // count sees both rows, so the owner never ends above the limit (both may back off).
      try {
        await this.delete(input.name);
      } catch (err) {
        // a PUT found the new bucket before this answer: it stays, and so it is not refused
        if (err instanceof S3DomainError && err.code === 'BucketNotEmpty') return bucket;
        throw err;
      }
      throw tooManyBuckets();
    }
    return bucket;
  }

  private async insert(input: { name: string; owner: Owner; location: string; acl: StoredAcl }): Promise<{ bucket: Bucket; created: boolean }> {
    if (!BUCKET_NAME_RE.test(input.name) || input.name.includes('..') || /^\d+\.\d+\.\d+\.\d+$/.test(input.name))
      throw s3err('InvalidBucketName', 'The specified bucket is not valid.', { BucketName: input.name });
    const row: BucketRow = {
      name: input.name,
      bucketId: randomUUID(),
      ownerId: input.owner.id,
      ownerName: input.owner.displayName,
      createdAt: this.clock.now(),
      location: input.location ?? '',
      versioning: 'Unversioned',
      acl: input.acl ?? 'private',
      state: 'active',
    };
    const { applied, existing } = await this.ms.buckets.insertIfNotExists(row);
    this.invalidate(input.name);
    if (applied) {
      await this.ms.buckets.addOwned(row);
      return { bucket: bucketOf(row), created: true };
    }
    if (existing && existing.ownerId === input.owner.id) {
      // us-east-1 answers 200 to an owner re-creating its bucket; other regions 409.
      if (!input.location || input.location === 'us-east-1') {
        await this.ms.buckets.addOwned(existing);
        return { bucket: bucketOf(existing), created: false };
      }
      throw s3err(
        'BucketAlreadyOwnedByYou',
        'Your previous request to create the named bucket succeeded and you already own it.',
        { BucketName: input.name },
      );
    }
    throw s3err(
      'BucketAlreadyExists',
      'The requested bucket name is not available. The bucket namespace is shared by all users of the system. Please select a different name and try again.',
      { BucketName: input.name },
    );
  }

  async get(name: string): Promise<Bucket> {
    return bucketOf(await this.resolve(name));
  }

  /**
   * Deletes an empty bucket: no visible version (delete markers count) and no multipart upload.
   * Emptiness is checked by walking the version and upload trees to their first visible row.
   * Not atomic with concurrent PUTs (as in S3, a PUT racing the delete may be lost): the bucket
   * row goes with `IF bucket_id = ?`, and data left under the old id is unreachable garbage.
   */
  async delete(name: string): Promise<void> {
    const b = await this.fresh(name);
    const anyVersion = await new TreeWalker(versionsSource(this.ms, b.bucketId), {
      keyFilter: versionKeyFilter(this.ms, b.bucketId),
      pageSize: 10,
    }).next();
    if (anyVersion) throw s3err('BucketNotEmpty', 'The bucket you tried to delete is not empty', { BucketName: name });
    // As S3 does, multipart uploads in progress do not keep a bucket: they are aborted with it
    // (their parts released) — before the bucket row goes, so that a crash leaves them abortable.
    await this.uploads.abortAll(b);
    const deleted = await this.ms.buckets.deleteIf(name, b.bucketId);
    this.invalidate(name);
    if (!deleted) throw noSuchBucket(name);
    await this.ms.buckets.removeOwned(b.ownerId, name);
    // an upload begun meanwhile through a gateway that still had the bucket cached
    await this.uploads.abortAll(b).catch(() => undefined);
  }

  async listOwnedPage(ownerId: string, page: OwnedBucketsPage): Promise<{ buckets: Bucket[]; more: boolean }> {
    const out: Bucket[] = [];
    let after = page.after;
    for (;;) {
      // one entry more than the page, to tell whether more remain
      const want = page.limit - out.length + 1;
      const entries = await this.ms.buckets.listOwnedPage(ownerId, { after, prefix: page.prefix, limit: want });
      for (let i = 0; i < entries.length; i += OWNED_CONFIRM_BATCH) {
        const slice = entries.slice(i, i + OWNED_CONFIRM_BATCH);
        const rows = await Promise.all(slice.map((e) => this.ms.buckets.get(e.name)));
        rows.forEach((r, j) => {
          if (r && r.bucketId === slice[j].bucketId && r.ownerId === ownerId) out.push(bucketOf(r));
        });
      }
      if (out.length > page.limit) return { buckets: out.slice(0, page.limit), more: true };
      if (entries.length < want) return { buckets: out, more: false };
      after = entries[entries.length - 1].name;
    }
  }

  countOwned(ownerId: string): Promise<number> {
    return this.ms.buckets.countOwned(ownerId);
  }

  async listOwned(ownerId: string): Promise<Bucket[]> {
    const entries = await this.ms.buckets.listOwned(ownerId);
    const rows = await Promise.all(entries.map((e) => this.ms.buckets.get(e.name)));
    return rows
      .filter((r, i): r is BucketRow => !!r && r.bucketId === entries[i].bucketId && r.ownerId === ownerId)
      .map(bucketOf)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async setVersioning(name: string, status: 'Enabled' | 'Suspended'): Promise<void> {
    const b = await this.fresh(name);
    if (status !== 'Enabled' && status !== 'Suspended')
      throw s3err('IllegalVersioningConfigurationException', 'The Versioning element must be specified');
    await this.update(b, { versioning: status });
  }

  async setAcl(name: string, acl: StoredAcl): Promise<void> {
    await this.update(await this.fresh(name), { acl });
  }

  async getTags(name: string): Promise<Record<string, string>> {
    const b = await this.resolve(name);
    if (!b.tags || Object.keys(b.tags).length === 0)
      throw s3err('NoSuchTagSet', 'The TagSet does not exist', { BucketName: name });
    return b.tags;
  }

  async setTags(name: string, tags: Record<string, string>): Promise<void> {
    const b = await this.fresh(name);
    if (Object.keys(tags).length > 50) throw s3err('InvalidTag', 'Bucket tag count cannot be greater than 50');
    validateTags(tags);
    await this.update(b, { tags: Object.keys(tags).length ? tags : null });
  }

  async deleteTags(name: string): Promise<void> {
    await this.update(await this.fresh(name), { tags: null });
  }

  async getLifecycle(name: string): Promise<string> {
    const b = await this.resolve(name);
    if (!b.lifecycle)
      throw s3err('NoSuchLifecycleConfiguration', 'The lifecycle configuration does not exist', { BucketName: name });
    return b.lifecycle;
  }

  async setLifecycle(name: string, xml: string): Promise<void> {
    await this.update(await this.fresh(name), { lifecycle: xml });
  }

  async deleteLifecycle(name: string): Promise<void> {
    await this.update(await this.fresh(name), { lifecycle: null });
  }

  async setCors(name: string, stored: string): Promise<void> {
    await this.update(await this.fresh(name), { cors: stored });
  }

  async deleteCors(name: string): Promise<void> {
    await this.update(await this.fresh(name), { cors: null });
  }

  async setEncryption(name: string, stored: string | null): Promise<void> {
    await this.update(await this.fresh(name), { encryption: stored });
  }

  async setAccessSettings(name: string, settings: BucketAccessSettings): Promise<void> {
    await this.update(await this.fresh(name), settings);
  }

  private async update(b: BucketRow, settings: Parameters<Metastore['buckets']['update']>[2]): Promise<void> {
    const applied = await this.ms.buckets.update(b.name, b.bucketId, settings);
    this.invalidate(b.name);
    if (!applied) throw noSuchBucket(b.name);
  }
}

/** S3's tag rules: key 1-128 characters, value 0-256, no aws: prefix. */
export function validateTags(tags: Record<string, string>): void {
  for (const [k, v] of Object.entries(tags)) {
    if (k.length === 0 || Array.from(k).length > 128) throw s3err('InvalidTag', 'The TagKey you have provided is invalid');
    if (Array.from(v).length > 256) throw s3err('InvalidTag', 'The TagValue you have provided is invalid');
    if (k.toLowerCase().startsWith('aws:')) throw s3err('InvalidTag', 'Your TagKey cannot be prefixed with aws:');
  }
}
