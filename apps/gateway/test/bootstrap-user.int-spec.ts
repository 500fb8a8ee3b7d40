import { migratedKeyspace } from '@ostore/metastore/schema/testing';
import type { UsersService } from '@ostore/s3/core';
import { CoreFixture, newCoreFixture } from '@ostore/s3/core/testing';
import { JsonLogger } from '@ostore/shared/observability';
import { BootstrapUser } from '../src/admin/bootstrap-user';
import type { GatewayConfig } from '../src/config/gateway.config';

const logger = new JsonLogger('gateway', 'silent');

/** The bootstrap user and key of test `n`: each test its own, on one keyspace. */
const bootstrapFor = (n: number) => ({
  user: `boot-${n}`,
  accessKeyId: `BOOTSTRAPRACEKEY000${n}`,
  secretAccessKey: `bootstrap-race-secret-000000000${n}`,
});

function bootstrapOf(
  users: UsersService,
  bootstrap: { user: string; accessKeyId: string; secretAccessKey: string },
): BootstrapUser {
  return new BootstrapUser(users, { s3: { bootstrap } } as GatewayConfig, logger);
}

/**
 * Every gateway on a keyspace creates the configured bootstrap user and key at boot, at the same
 * moment when GATEWAY_WORKERS forks its workers or a rollout starts its pods: losing the create to
 * another gateway must not fail the boot (a worker that failed here was restarted after a pause,
 * and GATEWAY_WORKERS=2 served on one worker meanwhile).
 */
describe('the bootstrap user and key, created by gateways booting together', () => {
  let f: CoreFixture;
  beforeAll(async () => {
    f = await newCoreFixture(await migratedKeyspace('bootstrap'));
  });
  afterAll(() => f?.close());

  it('boot on every gateway when they all check before any creates', async () => {
    const other = await f.another();
    const bootstrap = bootstrapFor(1);
    // eight gateways over two sessions, all checking before any has created
    const gateways = Array.from({ length: 8 }, (_, i) =>
      bootstrapOf(i % 2 ? other.core.users : f.core.users, bootstrap),
    );
    const results = await Promise.allSettled(gateways.map((g) => g.onApplicationBootstrap()));
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    const found = await f.core.users.findAccessKey(bootstrap.accessKeyId);
    expect(found?.user.id).toBe('boot-1');
    expect(found?.key.secretAccessKey).toBe(bootstrap.secretAccessKey);
  });

  it('boots when another gateway creates the user and key between its check and its create', async () => {
    const bootstrap = bootstrapFor(2);
    const real = f.core.users;
    // the checks answer "missing" once, as they did for the gateway that read before the winner wrote
    let userChecks = 0;
    let keyChecks = 0;
    const late: UsersService = Object.assign(Object.create(real) as UsersService, {
      getUser: (id: string) => (userChecks++ === 0 ? Promise.resolve(undefined) : real.getUser(id)),
      findAccessKey: (id: string) =>
        keyChecks++ === 0 ? Promise.resolve(undefined) : real.findAccessKey(id),
    });
    await bootstrapOf(real, bootstrap).onApplicationBootstrap();
    await expect(bootstrapOf(late, bootstrap).onApplicationBootstrap()).resolves.toBeUndefined();
    expect([userChecks, keyChecks]).toEqual([1, 2]);
    expect((await real.findAccessKey(bootstrap.accessKeyId))?.user.id).toBe('boot-2');
  });

  it('still fails the boot on any other error', async () => {
    const bootstrap = bootstrapFor(3);
    const real = f.core.users;
    const broken: UsersService = Object.assign(Object.create(real) as UsersService, {
      createUser: () => Promise.reject(new Error('Cassandra timed out')),
    });
    await expect(bootstrapOf(broken, bootstrap).onApplicationBootstrap()).rejects.toThrow(
      'Cassandra timed out',
    );
    expect(await real.getUser('boot-3')).toBeUndefined();
  });
});
