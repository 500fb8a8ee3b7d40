import { envVar, parseEnv } from '@ostore/shared/config';
import { BaseConfig, baseEnvSchema, toBaseConfig } from '@ostore/shared/runtime';

const schema = baseEnvSchema.extend({
  MANAGEMENT_PORT: envVar.port(9102),
});

/** The scheduler's configuration, validated once at boot. */
export type SchedulerConfig = BaseConfig;

export function loadSchedulerConfig(env: Record<string, string | undefined> = process.env): SchedulerConfig {
  const parsed = parseEnv(schema, env);
  return {
    ...toBaseConfig('scheduler', parsed, parsed.MANAGEMENT_PORT),
  };
}
