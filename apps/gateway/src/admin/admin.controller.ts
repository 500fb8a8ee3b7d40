import {
  BadRequestException,
  Body,
  CanActivate,
  Controller,
  ExecutionContext,
  Get,
  HttpCode,
  Inject,
  Injectable,
  NotFoundException,
  Param,
  Post,
  UnauthorizedException,
  UseGuards,
} from '@nestjs/common';
import { timingSafeEqual } from 'crypto';
import type { UsersService } from '@ostore/s3/core';
import { S3DomainError, USERS_SERVICE } from '@ostore/s3/core';
import { JsonLogger } from '@ostore/shared/observability';
import { GATEWAY_CONFIG } from '../s3/tokens';
import type { GatewayConfig } from '../config/gateway.config';

/** The admin API has its own credentials: `Authorization: Bearer <ADMIN_TOKEN>`; without ADMIN_TOKEN it is off. */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  constructor(@Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const token = this.config.adminToken;
    if (!token) throw new NotFoundException('the admin API is disabled (set ADMIN_TOKEN)');
    const header = context.switchToHttp().getRequest<{ headers: Record<string, string | undefined> }>().headers['authorization'] ?? '';
    const given = Buffer.from(header.replace(/^Bearer\s+/i, ''));
    const expected = Buffer.from(token);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new UnauthorizedException('bad admin token');
    return true;
  }
}

const USER_ID = /^[A-Za-z0-9._@-]{1,64}$/;

/** Users and access keys. Secrets appear only in the response that creates them, never in logs. */
@Controller('admin')
@UseGuards(AdminTokenGuard)
export class AdminController {
  private readonly log;

  constructor(
    @Inject(USERS_SERVICE) private readonly users: UsersService,
    logger: JsonLogger,
  ) {
    this.log = logger.forContext(AdminController.name);
  }

  @Post('users')
  async createUser(@Body() body: { id?: string; displayName?: string; accessKeyId?: string; secretAccessKey?: string }) {
    if (!body?.id || !USER_ID.test(body.id)) throw new BadRequestException('id must be 1-64 of A-Z a-z 0-9 . _ @ -');
    if ((body.accessKeyId === undefined) !== (body.secretAccessKey === undefined)) {
      throw new BadRequestException('accessKeyId and secretAccessKey go together');
    }
    const user = await this.call(() => this.users.createUser({ id: body.id!, displayName: body.displayName ?? body.id! }));
    const key = await this.call(() =>
      this.users.createAccessKey(user.id, body.accessKeyId ? { accessKeyId: body.accessKeyId, secretAccessKey: body.secretAccessKey! } : undefined),
    );
    this.log.info('user created', { userId: user.id, accessKeyId: key.accessKeyId });
    return { user, accessKey: key };
  }

  @Get('users')
  listUsers() {
    return this.users.listUsers();
  }

  @Post('users/:id/disable')
  @HttpCode(204)
  async disableUser(@Param('id') id: string) {
    await this.call(() => this.users.setUserDisabled(id, true));
    this.log.info('user disabled', { userId: id });
  }

  @Post('users/:id/enable')
  @HttpCode(204)
  async enableUser(@Param('id') id: string) {
    await this.call(() => this.users.setUserDisabled(id, false));
  }

  @Post('users/:id/keys')
  async createKey(@Param('id') id: string, @Body() body: { accessKeyId?: string; secretAccessKey?: string }) {
    const key = await this.call(() =>
      this.users.createAccessKey(id, body?.accessKeyId ? { accessKeyId: body.accessKeyId, secretAccessKey: body.secretAccessKey ?? '' } : undefined),
    );
    this.log.info('access key created', { userId: id, accessKeyId: key.accessKeyId });
    return key;
  }

  @Get('users/:id/keys')
  listKeys(@Param('id') id: string) {
    return this.call(() => this.users.listAccessKeys(id));
  }

  @Post('keys/:accessKeyId/disable')
  @HttpCode(204)
  async disableKey(@Param('accessKeyId') accessKeyId: string) {
    await this.call(() => this.users.setAccessKeyDisabled(accessKeyId, true));
    this.log.info('access key disabled', { accessKeyId });
  }

  @Post('keys/:accessKeyId/enable')
  @HttpCode(204)
  async enableKey(@Param('accessKeyId') accessKeyId: string) {
    await this.call(() => this.users.setAccessKeyDisabled(accessKeyId, false));
  }

  /** Domain errors become 4xx with their message. */
  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (e) {
      if (e instanceof S3DomainError) {
        if (/NoSuch|NotFound/.test(e.code)) throw new NotFoundException(e.message);
        throw new BadRequestException(`${e.code}: ${e.message}`);
      }
      throw e;
    }
  }
}
