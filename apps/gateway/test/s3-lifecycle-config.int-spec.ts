import {
  CreateBucketCommand,
  DeleteBucketLifecycleCommand,
  GetBucketLifecycleConfigurationCommand,
  LifecycleRule,
  PutBucketLifecycleConfigurationCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { parseLifecycleXml, STORED_LIFECYCLE_VERSION } from '@ostore/lifecycle/rules';
import { Metastore } from '@ostore/metastore/data-access';
import { CassandraClient } from '@ostore/shared/cassandra';
import { cassandraOptions, GatewayUnderTest, startGateway } from '@ostore/testing';
import { s3Error } from './s3-test-helpers';

/** The lifecycle configuration as stored in `buckets.lifecycle` and answered by GetBucketLifecycleConfiguration. */
describe('bucket lifecycle configuration through the AWS SDK v3', () => {
  let gw: GatewayUnderTest;
  let s3: S3Client;
  let db: CassandraClient;
  let ms: Metastore;

  beforeAll(async () => {
    gw = await startGateway('lifecycle-config');
    s3 = gw.client();
    db = new CassandraClient(cassandraOptions(gw.keyspace));
    await db.connect();
    ms = new Metastore(db);
  });
  afterAll(async () => {
    await db?.shutdown();
    await gw?.stop();
  });

  const rules: LifecycleRule[] = [
    { ID: 'logs', Status: 'Enabled', Filter: { Prefix: 'logs/' }, Expiration: { Days: 30 } },
    {
      ID: 'old',
      Status: 'Enabled',
      Filter: { And: { Prefix: 'a/', Tags: [{ Key: 'k', Value: 'v' }] } },
      NoncurrentVersionExpiration: { NoncurrentDays: 7, NewerNoncurrentVersions: 2 },
    },
  ];

  it('stores what it accepted in the versioned form and answers it back', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'stored-form' }));
    await s3.send(new PutBucketLifecycleConfigurationCommand({ Bucket: 'stored-form', LifecycleConfiguration: { Rules: rules } }));
    const stored = JSON.parse((await ms.buckets.get('stored-form'))!.lifecycle!) as { v: number; rules: { id: string }[] };
    expect(stored.v).toBe(STORED_LIFECYCLE_VERSION);
    expect(stored.rules.map((r) => r.id)).toEqual(['logs', 'old']);
    const got = await s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: 'stored-form' }));
    expect(got.Rules).toEqual(rules);
  });

  it('answers a configuration stored before the form had a version as before', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'old-row' }));
    const bucket = (await ms.buckets.get('old-row'))!;
    const config = parseLifecycleXml(
      '<LifecycleConfiguration><Rule><ID>logs</ID><Filter><Prefix>logs/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>30</Days></Expiration></Rule></LifecycleConfiguration>',
    );
    expect(await ms.buckets.update('old-row', bucket.bucketId, { lifecycle: JSON.stringify(config) })).toBe(true);
    const got = await s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: 'old-row' }));
    expect(got.Rules).toEqual([rules[0]]);
    await s3.send(new DeleteBucketLifecycleCommand({ Bucket: 'old-row' }));
    const gone = await s3Error(s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: 'old-row' })));
    expect(gone.name).toBe('NoSuchLifecycleConfiguration');
  });
});
