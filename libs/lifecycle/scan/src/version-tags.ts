import { types } from 'cassandra-driver';
import type { VersionsRepository } from '@ostore/metastore/data-access';

/** Object tags of versions, by vid. */
export abstract class VersionTagSource {
  abstract tagsOf(vids: readonly string[]): Promise<Map<string, Record<string, string>>>;
}

/**
 * Tags live in `version_meta`, one partition per vid, i.e. on other nodes than the version rows:
 * the one part of the scan that is not local. It is read only for objects of buckets with an
 * enabled rule that filters by tag and whose prefix the key has, one small single-partition read
 * per kept version, through the app's token-aware session at consistency ONE (a dry run: the
 * scheduler re-reads before acting), at most `concurrency` at a time.
 */
export class MetastoreVersionTagSource extends VersionTagSource {
  constructor(
    private readonly versions: Pick<VersionsRepository, 'tagsOf'>,
    private readonly concurrency = 16,
  ) {
    super();
  }

  tagsOf(vids: readonly string[]): Promise<Map<string, Record<string, string>>> {
    return this.versions.tagsOf(vids, {
      concurrency: this.concurrency,
      consistency: types.consistencies.one,
    });
  }
}
