import { z, ZodTypeAny } from 'zod';

/** Raised when the environment fails validation; the message names every bad variable. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Validates `env` against a zod object schema of environment variables, collecting every
 * problem before failing, so that one boot names all bad variables at once.
 */
export function parseEnv<S extends ZodTypeAny>(
  schema: S,
  env: Record<string, string | undefined>,
): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const name = issue.path.join('.') || '(environment)';
    const value = env[String(issue.path[0])];
    const shown = value === undefined ? 'missing' : `got ${JSON.stringify(value)}`;
    return `${name}: ${issue.message} (${shown})`;
  });
  throw new ConfigError(problems);
}

/** Common variable shapes. */
export const envVar = {
  port: (def: number) => z.coerce.number().int().min(1).max(65535).default(def),
  int: (def: number, min = 0, max = Number.MAX_SAFE_INTEGER) =>
    z.coerce.number().int().min(min).max(max).default(def),
  string: (def: string) => z.string().min(1).default(def),
  requiredString: () => z.string({ required_error: 'is required' }).min(1, 'must not be empty'),
  list: (def: string) =>
    z
      .string()
      .default(def)
      .transform((s) =>
        s
          .split(',')
          .map((p) => p.trim())
          .filter(Boolean),
      )
      .refine((l) => l.length > 0, 'must list at least one value'),
  bool: (def: boolean) =>
    z
      .enum(['true', 'false', '1', '0', 'yes', 'no'])
      .default(def ? 'true' : 'false')
      .transform((v) => v === 'true' || v === '1' || v === 'yes'),
  enumOf: <T extends [string, ...string[]]>(values: T, def: T[number]) =>
    z.enum(values).default(def as never),
};

/** Reports the problem and exits: what every app's main does with a ConfigError. */
export function exitOnConfigError(err: unknown): never {
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(78);
  }
  throw err;
}
