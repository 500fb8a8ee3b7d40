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
import type { IncomingMessage } from 'http';
import { createHash, timingSafeEqual } from 'crypto';
import type { UsersService } from '@ostore/s3/core';
import {
  ACCESS_KEY_ID_PATTERN,
  MAX_ACCESS_KEY_ID_LENGTH,
  MAX_USER_ID_LENGTH,
  S3DomainError,
  USER_ID_PATTERN,
  USERS_SERVICE,
} from '@ostore/s3/core';
import { JsonLogger } from '@ostore/shared/observability';
import { GATEWAY_CONFIG } from '../s3/tokens';
import type { GatewayConfig } from '../config/gateway.config';

/** Equal tokens, compared in constant time (digests of equal length: not even the length leaks). */
function sameToken(given: string, expected: string): boolean {
  const digest = (t: string) => createHash('sha256').update(t).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

/**
 * The admin API has its own credentials: `Authorization: Bearer <token>` (ADMIN_TOKEN or
 * ADMIN_TOKEN_FILE), nothing else; without a token it is off. With ADMIN_PORT it answers only on
 * its own listener (AdminListener), never on the management port.
 */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  constructor(@Inject(GATEWAY_CONFIG) private readonly config: GatewayConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const { token, port } = this.config.admin;
    const request = context.switchToHttp().getRequest<IncomingMessage>();
    if (port !== undefined && request.socket.localPort !== port) throw new NotFoundException('the admin API is served on its own port (ADMIN_PORT)');
    if (!token) throw new NotFoundException('the admin API is disabled (set ADMIN_TOKEN or ADMIN_TOKEN_FILE)');
    const bearer = /^Bearer +(\S+) *$/i.exec(request.headers['authorization'] ?? '');
    if (!bearer || !sameToken(bearer[1], token)) throw new UnauthorizedException('bad admin token (send Authorization: Bearer <token>)');
    return true;
  }
}

/** Secrets of 16 to 128 printable ASCII characters without spaces (AWS's are 40). */
const SECRET_ACCESS_KEY = /^[\x21-\x7e]{16,128}$/;

/** A key pair given by the caller: both or neither, each valid; undefined means "generate one". */
function givenKeyPair(body: { accessKeyId?: unknown; secretAccessKey?: unknown } | undefined): { accessKeyId: string; secretAccessKey: string } | undefined {
  const { accessKeyId, secretAccessKey } = body ?? {};
  if (accessKeyId === undefined && secretAccessKey === undefined) return undefined;
  if (accessKeyId === undefined || secretAccessKey === undefined) throw new BadRequestException('accessKeyId and secretAccessKey go together');
  if (typeof accessKeyId !== 'string' || !ACCESS_KEY_ID_PATTERN.test(accessKeyId)) throw new BadRequestException(`accessKeyId must be 16-${MAX_ACCESS_KEY_ID_LENGTH} letters or digits`);
  if (typeof secretAccessKey !== 'string' || !SECRET_ACCESS_KEY.test(secretAccessKey))
    throw new BadRequestException('secretAccessKey must be 16-128 printable ASCII characters without spaces');
  return { accessKeyId, secretAccessKey };
}

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
    if (!body?.id || !USER_ID_PATTERN.test(body.id)) throw new BadRequestException(`id must be 1-${MAX_USER_ID_LENGTH} of A-Z a-z 0-9 . _ @ -`);
    const keyPair = givenKeyPair(body);
    const user = await this.call(() => this.users.createUser({ id: body.id!, displayName: body.displayName ?? body.id! }));
    const key = await this.call(() => this.users.createAccessKey(user.id, keyPair));
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
    const keyPair = givenKeyPair(body);
    const key = await this.call(() => this.users.createAccessKey(id, keyPair));
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
