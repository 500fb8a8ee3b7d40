import { Inject, Injectable, OnApplicationBootstrap } from '@nestjs/common';
import type { UsersService } from '@ostore/s3/core';
import { S3DomainError, USERS_SERVICE } from '@ostore/s3/core';
import { JsonLogger } from '@ostore/shared/observability';
import { GATEWAY_CONFIG } from '../s3/tokens';
import type { GatewayConfig } from '../config/gateway.config';

/**
 * Creates the configured bootstrap user and key when missing (local development, first admin).
 * Every gateway booting on the same keyspace does this at once (GATEWAY_WORKERS processes, the
 * pods of a rollout): the creates are Cassandra LWTs, and losing one to another gateway is not an
 * error; what the winner stored is then checked like a key found at the start.
 */
@Injectable()
export class BootstrapUser implements OnApplicationBootstrap {
  constructor(
    @Inject(USERS_SERVICE) private readonly users: UsersService,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig,
    private readonly logger: JsonLogger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const b = this.config.s3.bootstrap;
    if (!b) return;
    const log = this.logger.forContext(BootstrapUser.name);
    if (!(await this.users.getUser(b.user))) {
      try {
        await this.users.createUser({ id: b.user, displayName: b.user });
        log.info('bootstrap user created', { userId: b.user });
      } catch (e) {
        if (!(e instanceof S3DomainError && e.code === 'UserAlreadyExists')) throw e;
      }
    }
    let existing = await this.users.findAccessKey(b.accessKeyId);
    if (!existing) {
      try {
        await this.users.createAccessKey(b.user, {
          accessKeyId: b.accessKeyId,
          secretAccessKey: b.secretAccessKey,
        });
        log.info('bootstrap access key created', { userId: b.user, accessKeyId: b.accessKeyId });
        return;
      } catch (e) {
        if (!(e instanceof S3DomainError && e.code === 'AccessKeyAlreadyExists')) throw e;
        existing = await this.users.findAccessKey(b.accessKeyId);
      }
    }
    if (existing && existing.user.id !== b.user) {
      log.warn('bootstrap access key belongs to another user; left as is', {
        accessKeyId: b.accessKeyId,
        owner: existing.user.id,
      });
    }
  }
}
