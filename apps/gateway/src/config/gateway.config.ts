import { envVar, parseEnv } from '@ostore/shared/config';
import { BaseConfig, baseEnvSchema, toBaseConfig } from '@ostore/shared/runtime';

const schema = baseEnvSchema.extend({
  MANAGEMENT_PORT: envVar.port(9100),
  S3_HOST: envVar.string('0.0.0.0'),
  S3_PORT: envVar.port(9000),
});

/** The gateway's configuration, validated once at boot. */
export interface GatewayConfig extends BaseConfig {
  s3: { host: string; port: number };
}

export function loadGatewayConfig(env: Record<string, string | undefined> = process.env): GatewayConfig {
  const parsed = parseEnv(schema, env);
  return {
    ...toBaseConfig('gateway', parsed, parsed.MANAGEMENT_PORT),
    s3: { host: parsed.S3_HOST, port: parsed.S3_PORT },
  };
}
