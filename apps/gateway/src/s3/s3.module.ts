import { DynamicModule, Module } from '@nestjs/common';
import type { GatewayConfig } from '../config/gateway.config';
import { S3Server } from './s3-server';
import { GATEWAY_CONFIG } from './tokens';

@Module({})
export class S3Module {
  static register(config: GatewayConfig): DynamicModule {
    return { module: S3Module, providers: [{ provide: GATEWAY_CONFIG, useValue: config }, S3Server] };
  }
}
