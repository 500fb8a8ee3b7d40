import { CreateBucketCommand, DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { GatewayUnderTest, waitFor } from '@ostore/testing';
import { heldBytes, MiB, outcome, setQuota, startThreeGateways, uploadConcurrently, usageOf } from './quota-helpers';

/**
 * Three real gateway processes over one keyspace and one block store: each admits against the
 * shared ledger plus its own reservations, so the overshoot is bounded by the OTHER gateways'
 * admitted requests in flight (README, quota section): at most (uploaders on the other two) ×
 * (largest object) here. With the default settings a 10 MiB quota lies wholly inside the exact
 * headroom (at least 1 GiB), so every admission here takes the exact path.
 */
describe('bucket quotas (three gateways)', () => {
  const gateways: GatewayUnderTest[] = [];
  let clients: S3Client[];

  beforeAll(async () => {
    await startThreeGateways('quota3', {}, gateways);
    clients = gateways.map((g) => g.client(gateways[0].credentials));
  }, 400_000);
  afterAll(() => Promise.all(gateways.map((g) => g.stop())));

  it('32 uploaders spread over three gateways overshoot a 10 MiB quota by less than the documented bound', async () => {
    const Bucket = 'quota-three';
    await clients[0].send(new CreateBucketCommand({ Bucket }));
    await setQuota(gateways[0], Bucket, { maxBytes: 10 * MiB });
    const uploaders = 32;
    const largest = 256 * 1024;
    const { accepted, outcomes } = await uploadConcurrently(clients, Bucket, {
      uploaders,
      attempts: 6,
      sizes: [64 * 1024, 128 * 1024, largest],
      prefix: 'three',
    });
    expect([...outcomes.keys()].sort()).toEqual(['403 QuotaExceeded', 'ok']);
    const held = await heldBytes(clients[1], Bucket);
    expect(held).toEqual({ bytes: accepted.reduce((a, b) => a + b.size, 0), objects: accepted.length });
    // the busiest gateway has ceil(32 / 3) = 11 uploaders: the two others have at most 22 in flight
    const othersInFlight = uploaders - Math.floor(uploaders / gateways.length);
    const bound = othersInFlight * largest;
    expect(held.bytes).toBeLessThanOrEqual(10 * MiB + bound);
    // every gateway's ledger view agrees with the exact count
    for (const gw of gateways) expect(await usageOf(gw, Bucket)).toMatchObject({ source: 'ledger', bytes: held.bytes, objects: held.objects });

    // a delete through one gateway makes room for a PUT through another within seconds
    const full = await outcome(clients[2].send(new PutObjectCommand({ Bucket, Key: 'probe', Body: Buffer.alloc(largest) })));
    expect(full).toBe('403 QuotaExceeded');
    let freed = 0;
    for (const { key, size } of accepted) {
      if (freed >= largest + Math.max(0, held.bytes - 10 * MiB)) break;
      await clients[1].send(new DeleteObjectCommand({ Bucket, Key: key }));
      freed += size;
    }
    await waitFor(
      'room after deletes through another gateway',
      async () => ((await outcome(clients[2].send(new PutObjectCommand({ Bucket, Key: 'probe', Body: Buffer.alloc(largest) })))) === 'ok' ? true : undefined),
      5000,
      100,
    );
    expect((await heldBytes(clients[0], Bucket)).bytes).toBeLessThanOrEqual(10 * MiB);
  });
});
