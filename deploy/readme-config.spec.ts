/**
 * The README's Configuration section against the config schemas: every environment variable an
 * app (or command) reads is documented there, under a heading naming that app, and nothing is
 * documented that the app does not read.
 *
 * What an app reads is found by running its real config loader on an environment that records
 * every name asked of it (zod's object schemas read each key of their shape), so the list cannot
 * drift from the schemas, whichever file or lib a variable is declared in.
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import { ConfigError } from '@ostore/shared/config';
import { loadMigrateConfig } from '../libs/shared/runtime/src/config/migrate.config';
import { loadAdminCliConfig } from '../apps/gateway/src/config/admin-cli.config';
import { loadGatewayConfig } from '../apps/gateway/src/config/gateway.config';
import { loadScannerConfig } from '../apps/scanner/src/config/scanner.config';
import { loadSchedulerConfig } from '../apps/scheduler/src/config/scheduler.config';
import { loadStatsConfig } from '../apps/stats/src/config/stats.config';

type Env = Record<string, string | undefined>;

const APPS = ['gateway', 'scanner', 'scheduler', 'stats'] as const;
type Reader = (typeof APPS)[number] | 'migrate' | 'admin';

const loaders: Record<Reader, (env: Env) => unknown> = {
  gateway: loadGatewayConfig,
  scanner: loadScannerConfig,
  scheduler: loadSchedulerConfig,
  stats: loadStatsConfig,
  migrate: loadMigrateConfig,
  admin: loadAdminCliConfig,
};

/** The environment variables `load` asks for, with nothing set (a required one fails: fine). */
function variablesRead(load: (env: Env) => unknown): string[] {
  const asked = new Set<string>();
  const env = new Proxy({} as Env, {
    get(_target, name) {
      if (typeof name === 'string') asked.add(name);
      return undefined;
    },
  });
  try {
    load(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
  }
  // zod also probes the object itself (`then`, to tell a promise); variables are upper case
  return [...asked].filter((name) => /^[A-Z][A-Z0-9_]*$/.test(name)).sort();
}

/** `## Configuration` of the README, up to the next `## ` heading. */
function configurationSection(): string {
  const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');
  const start = readme.indexOf('\n## Configuration\n');
  if (start < 0) throw new Error('README.md has no "## Configuration" section');
  const rest = readme.slice(start + 1);
  const next = rest.slice(3).search(/^## /m);
  return next < 0 ? rest : rest.slice(0, next + 3);
}

/**
 * The variables each app or command is documented with: the first-column backticked names of the
 * tables under each `### ` heading, for the apps the heading names ("All apps": the four apps).
 */
function documented(section: string): Map<Reader, Set<string>> {
  const byReader = new Map<Reader, Set<string>>(Object.keys(loaders).map((r) => [r as Reader, new Set()]));
  for (const part of section.split(/^### /m).slice(1)) {
    const heading = part.slice(0, part.indexOf('\n'));
    const readers: Reader[] = /\ball apps\b/i.test(heading)
      ? [...APPS]
      : (Object.keys(loaders) as Reader[]).filter((r) => new RegExp(`\\b${r}\\b`).test(heading));
    if (readers.length === 0) throw new Error(`README Configuration: "### ${heading}" names no app`);
    for (const [, name] of part.matchAll(/^\|\s*`([A-Z][A-Z0-9_]*)`\s*\|/gm)) {
      for (const r of readers) byReader.get(r)!.add(name);
    }
  }
  return byReader;
}

const section = configurationSection();
const docs = documented(section);

describe('README Configuration section', () => {
  it('finds what the loaders read (the recording environment works)', () => {
    for (const app of APPS) {
      expect(variablesRead(loaders[app])).toEqual(expect.arrayContaining(['CASSANDRA_PORT', 'MANAGEMENT_PORT']));
    }
    expect(variablesRead(loaders.scanner)).toContain('SCAN_INTERVAL_SECONDS');
    expect(variablesRead(loaders.admin)).toEqual(['ADMIN_TOKEN', 'OSTORE_ADMIN_URL']);
  });

  it.each(APPS.map((app) => [app]))(
    '%s: every variable its config schema reads is documented under a heading naming it, and only those',
    (app) => {
      const read = variablesRead(loaders[app]);
      const listed = [...docs.get(app)!].sort();
      expect({ undocumented: read.filter((v) => !listed.includes(v)) }).toEqual({ undocumented: [] });
      expect({ notReadByTheApp: listed.filter((v) => !read.includes(v)) }).toEqual({ notReadByTheApp: [] });
    },
  );

  it('npm run migrate reads only variables documented for all apps', () => {
    const allApps = APPS.map((app) => docs.get(app)!);
    const missing = variablesRead(loaders.migrate).filter((v) => !allApps.every((names) => names.has(v)));
    expect(missing).toEqual([]);
  });

  it('npm run admin: its variables, and only those', () => {
    expect([...docs.get('admin')!].sort()).toEqual(variablesRead(loaders.admin));
  });

  it('names no variable in prose or tables that no app or command reads', () => {
    const read = new Set(Object.values(loaders).flatMap(variablesRead));
    const named = [...section.matchAll(/`([A-Z][A-Z0-9]*_[A-Z0-9_]+)`/g)].map((m) => m[1]);
    expect([...new Set(named.filter((v) => !read.has(v)))]).toEqual([]);
  });
});
