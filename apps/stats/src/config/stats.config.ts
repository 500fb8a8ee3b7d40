import { envVar, parseEnv } from '@ostore/shared/config';
import { BaseConfig, baseEnvSchema, toBaseConfig } from '@ostore/shared/runtime';

const schema = baseEnvSchema.extend({
  MANAGEMENT_PORT: envVar.port(9103),
});

/** The stats's configuration, validated once at boot. */
export type StatsConfig = BaseConfig;

export function loadStatsConfig(env: Record<string, string | undefined> = process.env): StatsConfig {
  const parsed = parseEnv(schema, env);
  return {
    ...toBaseConfig('stats', parsed, parsed.MANAGEMENT_PORT),
  };
}
