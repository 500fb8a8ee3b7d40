import { CassandraClient } from '@ostore/shared/cassandra';
import { BucketsRepository } from './buckets.repository';
import { FoldersRepository } from './folders.repository';
import { ObjectsRepository } from './objects.repository';
import { QuotaLedgerRepository } from './quota-ledger.repository';
import { applyPartitionMutation, Statement } from './statement';
import { UploadsRepository } from './uploads.repository';
import { UsersRepository } from './users.repository';
import { VersionsRepository } from './versions.repository';

/** Every metastore repository over one Cassandra session. */
export class Metastore {
  readonly buckets: BucketsRepository;
  readonly users: UsersRepository;
  readonly versions: VersionsRepository;
  readonly objects: ObjectsRepository;
  readonly objectFolders: FoldersRepository;
  readonly versionFolders: FoldersRepository;
  readonly uploadFolders: FoldersRepository;
  readonly uploads: UploadsRepository;
  readonly quotaLedger: QuotaLedgerRepository;

  constructor(readonly client: CassandraClient) {
    this.buckets = new BucketsRepository(client);
    this.users = new UsersRepository(client);
    this.versions = new VersionsRepository(client);
    this.objects = new ObjectsRepository(client);
    this.objectFolders = new FoldersRepository(client, 'object_folders');
    this.versionFolders = new FoldersRepository(client, 'version_folders');
    this.uploadFolders = new FoldersRepository(client, 'upload_folders');
    this.uploads = new UploadsRepository(client);
    this.quotaLedger = new QuotaLedgerRepository(client);
  }

  /** Applies statements that all write the same (bucket_id, parent) partition as one mutation. */
  applyPartitionMutation(statements: Statement[]): Promise<void> {
    return applyPartitionMutation(this.client, statements);
  }
}
