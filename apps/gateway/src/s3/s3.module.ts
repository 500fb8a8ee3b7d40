import { DynamicModule, Module, Type } from '@nestjs/common';
import type { GatewayConfig } from '../config/gateway.config';
import { AccessControl } from './access';
import { AclResolver } from './acl-request';
import { PolicyGate } from './policy-gate';
import { Authenticator } from './authenticator';
import { CorsResponder } from './cors-responder';
import { S3_HANDLERS, S3Handler } from './s3-handler';
import { S3Server } from './s3-server';
import { GATEWAY_CONFIG } from './tokens';
import { ObjectEncryption } from './sse/object-encryption';
import * as bucket from './handlers/bucket';
import * as object from './handlers/object';
import * as multipart from './handlers/multipart';

const handlerClasses = ([...Object.values(bucket), ...Object.values(object), ...Object.values(multipart)] as unknown[]).filter(
  (v): v is Type<S3Handler> => typeof v === 'function' && typeof (v as { prototype?: { handle?: unknown } }).prototype?.handle === 'function',
);

/** The S3 endpoint: server, authentication, access control and one handler per operation. */
@Module({})
export class S3Module {
  static register(config: GatewayConfig, core: DynamicModule): DynamicModule {
    return {
      module: S3Module,
      imports: [core],
      providers: [
        { provide: GATEWAY_CONFIG, useValue: config },
        Authenticator,
        AccessControl,
        AclResolver,
        CorsResponder,
        PolicyGate,
        ObjectEncryption,
        ...handlerClasses,
        { provide: S3_HANDLERS, useFactory: (...handlers: S3Handler[]) => handlers, inject: handlerClasses },
        S3Server,
      ],
      exports: [GATEWAY_CONFIG, core, ObjectEncryption],
    };
  }
}
