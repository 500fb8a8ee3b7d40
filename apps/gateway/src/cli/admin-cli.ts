/**
 * `npm run admin -- <command>`: manage users and access keys through a gateway's admin API.
 *
 *   user create <id> [--display-name NAME] [--access-key-id ID --secret-access-key SECRET]
 *   user list
 *   user disable <id> | user enable <id>
 *   key create <userId> [--access-key-id ID --secret-access-key SECRET]
 *   key list <userId>
 *   key disable <accessKeyId> | key enable <accessKeyId>
 *   bucket list | usage | report | quota set | quota clear | quota recount  (see bucket-commands.ts, bucket-report.command.ts)
 *   sse rewrap <bucket>  (see sse-command.ts)
 *
 * Environment: OSTORE_ADMIN_URL (default http://127.0.0.1:9104: the gateway's ADMIN_HOST:ADMIN_PORT), ADMIN_TOKEN.
 * Secrets are printed once, by the command that creates them.
 */
import { exitOnConfigError } from '@ostore/shared/config';
import { loadAdminCliConfig } from '../config/admin-cli.config';
import { BUCKET_USAGE, parseBucketArgs } from './bucket-commands';
import { foldersMain } from './folders-command';
import { parseBucketReport, renderBucketReport } from './bucket-report.command';
import { parseSseArgs, SSE_USAGE } from './sse-command';

export const USAGE = `usage:
  user create <id> [--display-name NAME] [--access-key-id ID --secret-access-key SECRET]
  user list
  user disable <id>
  user enable <id>
  key create <userId> [--access-key-id ID --secret-access-key SECRET]
  key list <userId>
  key disable <accessKeyId>
  key enable <accessKeyId>
  folders status [--generations N] [--json]   (folders --help)
${BUCKET_USAGE}
  bucket report <bucket> [--json]           the newest combined scan snapshot: tops, anomalies
${SSE_USAGE}`;

export interface CliRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  body?: Record<string, unknown>;
  /** How to print the JSON answer (default: indented JSON). */
  render?: (answer: unknown) => string;
}

/** Turns arguments into one admin API call, or throws with a precise message. */
export function parseAdminArgs(argv: string[]): CliRequest | { help: string } {
  const report = parseBucketReport(argv);
  if (report) return 'help' in report ? report : { method: 'GET', path: report.path, ...(report.json ? {} : { render: (a) => renderBucketReport(a as Parameters<typeof renderBucketReport>[0]).trimEnd() }) };
  if (argv[0] === 'bucket') return parseBucketArgs(argv.slice(1));
  const sse = parseSseArgs(argv);
  if (sse) return sse;
  if (argv.includes('--help') || argv.includes('-h') || argv[0] === 'help') return { help: USAGE };
  const positional: string[] = [];
  const flags: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('--')) {
      const name = a.slice(2);
      if (!['display-name', 'access-key-id', 'secret-access-key'].includes(name)) throw new Error(`unknown option --${name}`);
      const value = argv[++i];
      if (value === undefined || value.startsWith('--')) throw new Error(`option --${name} needs a value`);
      flags[name] = value;
    } else positional.push(a);
  }
  const [noun, verb, arg, ...extra] = positional;
  if (extra.length) throw new Error(`unexpected argument "${extra[0]}"`);
  const need = (what: string) => {
    if (!arg) throw new Error(`${noun} ${verb} needs <${what}>`);
    return encodeURIComponent(arg);
  };
  if ((flags['access-key-id'] === undefined) !== (flags['secret-access-key'] === undefined)) {
    throw new Error('--access-key-id and --secret-access-key go together');
  }
  const keyPair: Record<string, string> = flags['access-key-id'] ? { accessKeyId: flags['access-key-id'], secretAccessKey: flags['secret-access-key'] } : {};
  switch (`${noun} ${verb}`) {
    case 'user create':
      need('id');
      return { method: 'POST', path: '/admin/users', body: { id: arg, displayName: flags['display-name'] ?? arg, ...keyPair } };
    case 'user list':
      return { method: 'GET', path: '/admin/users' };
    case 'user disable':
    case 'user enable':
      return { method: 'POST', path: `/admin/users/${need('id')}/${verb}` };
    case 'key create':
      return { method: 'POST', path: `/admin/users/${need('userId')}/keys`, body: keyPair };
    case 'key list':
      return { method: 'GET', path: `/admin/users/${need('userId')}/keys` };
    case 'key disable':
    case 'key enable':
      return { method: 'POST', path: `/admin/keys/${need('accessKeyId')}/${verb}` };
    default:
      throw new Error(noun ? `unknown command "${positional.join(' ')}"` : 'no command given');
  }
}

/** Why the admin API could not be reached, in words (fetch itself only says "fetch failed"). */
export function unreachable(url: string, error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  const why = cause?.code ?? cause?.message ?? (error as Error)?.message ?? String(error);
  return `cannot reach the gateway's admin API at ${url} (${why}): is the gateway running, and is OSTORE_ADMIN_URL its admin address (ADMIN_HOST:ADMIN_PORT)?`;
}

async function main(): Promise<void> {
  if (process.argv[2] === 'folders') return foldersCli();
  let request: CliRequest;
  try {
    const parsed = parseAdminArgs(process.argv.slice(2));
    if ('help' in parsed) {
      process.stdout.write(`${parsed.help}\n`);
      return;
    }
    request = parsed;
  } catch (e) {
    process.stderr.write(`admin: ${(e as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
  let config;
  try {
    config = loadAdminCliConfig();
  } catch (e) {
    exitOnConfigError(e);
  }
  let res: Response;
  try {
    res = await fetch(`${config.url}${request.path}`, {
      method: request.method,
      headers: { Authorization: `Bearer ${config.token}`, 'Content-Type': 'application/json' },
      body: request.body ? JSON.stringify(request.body) : undefined,
    });
  } catch (e) {
    process.stderr.write(`admin: ${unreachable(config.url, e)}\n`);
    process.exit(1);
  }
  const text = await res.text();
  if (!res.ok) {
    let message = text;
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? text;
    } catch {
      /* not JSON */
    }
    process.stderr.write(`admin: ${res.status} ${message}\n`);
    process.exit(1);
  }
  const render = request.render ?? ((answer: unknown) => JSON.stringify(answer, null, 2));
  process.stdout.write(text ? `${render(JSON.parse(text))}\n` : 'ok\n');
}

async function foldersCli(): Promise<void> {
  let config;
  try {
    config = loadAdminCliConfig();
  } catch (e) {
    exitOnConfigError(e);
  }
  process.exit(await foldersMain(process.argv.slice(3), { config, unreachable, out: process.stdout, err: process.stderr }));
}

if (require.main === module) {
  main().catch((e) => {
    process.stderr.write(`admin: ${(e as Error).message}\n`);
    process.exit(1);
  });
}
