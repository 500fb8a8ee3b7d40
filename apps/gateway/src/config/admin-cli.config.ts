import { parseEnv, z } from '@ostore/shared/config';

const schema = z.object({
  OSTORE_ADMIN_URL: z.string().url('must be a URL such as http://127.0.0.1:9104').default('http://127.0.0.1:9104'),
  ADMIN_TOKEN: z.string({ required_error: 'is required (the gateway’s ADMIN_TOKEN)' }).min(16, 'must be at least 16 characters'),
});

/** The admin CLI talks to a gateway's admin API with the admin token. */
export function loadAdminCliConfig(env: Record<string, string | undefined> = process.env): { url: string; token: string } {
  const parsed = parseEnv(schema, env);
  return { url: parsed.OSTORE_ADMIN_URL.replace(/\/$/, ''), token: parsed.ADMIN_TOKEN };
}
