import { envVar, parseEnv } from '@ostore/shared/config';
import { BaseConfig, baseEnvSchema, toBaseConfig } from '@ostore/shared/runtime';

const schema = baseEnvSchema.extend({
  MANAGEMENT_PORT: envVar.port(9101),
});

/** The scanner's configuration, validated once at boot. */
export type ScannerConfig = BaseConfig;

export function loadScannerConfig(env: Record<string, string | undefined> = process.env): ScannerConfig {
  const parsed = parseEnv(schema, env);
  return {
    ...toBaseConfig('scanner', parsed, parsed.MANAGEMENT_PORT),
  };
}
