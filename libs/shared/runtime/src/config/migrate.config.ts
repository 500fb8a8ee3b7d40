import { parseEnv } from '@ostore/shared/config';
import { BaseConfig, baseEnvSchema, toBaseConfig } from '../base-config';

/** Configuration of the migrate command: the same variables as the apps. */
export function loadMigrateConfig(env: Record<string, string | undefined> = process.env): BaseConfig {
  return toBaseConfig('migrate', parseEnv(baseEnvSchema, env), 0);
}
