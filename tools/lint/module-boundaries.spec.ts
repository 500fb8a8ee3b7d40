import { execFileSync } from 'child_process';
import { resolve } from 'path';

const root = resolve(__dirname, '../..');

interface Message {
  ruleId: string | null;
  message: string;
}

/** Code linted as if it were the file `file` of the workspace. */
interface Case {
  file: string;
  code: string;
}

const importing = (file: string, target: string): Case => ({
  file,
  code: `import * as x from '${target}';\nexport const y = x;\n`,
});

/** Imports the `type:` rules allow, so that only the `scope:` rule can fail them. */
const outOfScope: [who: string, file: string, target: string, scope: string][] = [
  ['an s3 lib', 'libs/s3/core/src/bad.ts', '@ostore/lifecycle/scan', 'scope:s3'],
  ['the runtime lib', 'libs/shared/runtime/src/bad.ts', '@ostore/s3/core', 'scope:runtime'],
  ['a shared lib', 'libs/shared/cassandra/src/bad.ts', '@ostore/metastore/data-access', 'scope:shared'],
  ['the metastore', 'libs/metastore/data-access/src/bad.ts', '@ostore/queue/data-access', 'scope:metastore'],
  ['the queue', 'libs/queue/data-access/src/bad.ts', '@ostore/storage/blocks', 'scope:queue'],
  ['the gateway', 'apps/gateway/src/bad.ts', '@ostore/lifecycle/scan', 'scope:gateway'],
  ['the scheduler', 'apps/scheduler/src/bad.ts', '@ostore/lifecycle/scan', 'scope:scheduler'],
  ['the stats app', 'apps/stats/src/bad.ts', '@ostore/s3/core', 'scope:stats'],
];

const inScope: [who: string, file: string, target: string][] = [
  ['an app a lib through its alias', 'apps/scanner/src/ok.ts', '@ostore/shared/clock'],
  ['the scanner its own scan lib', 'apps/scanner/src/ok.ts', '@ostore/lifecycle/scan'],
  ['the scheduler the s3 core', 'apps/scheduler/src/ok.ts', '@ostore/s3/core'],
  ['an s3 lib the rule engine', 'libs/s3/core/src/ok.ts', '@ostore/lifecycle/rules'],
  ['the scan lib the metastore', 'libs/lifecycle/scan/src/ok.ts', '@ostore/metastore/data-access'],
  ['the runtime lib the queue', 'libs/shared/runtime/src/ok.ts', '@ostore/queue/data-access'],
  ['a lib spec the test support', 'libs/storage/blocks/test/ok.int-spec.ts', '@ostore/testing'],
  ['an e2e spec the test support', 'apps/system-e2e/test/ok.int-spec.ts', '@ostore/testing'],
  ['an e2e spec the queue contracts', 'apps/system-e2e/test/ok.int-spec.ts', '@ostore/queue/contracts'],
  ['the bench the s3 core', 'tools/bench/lifecycle/ok.ts', '@ostore/s3/core'],
  ['the bench the scan lib', 'tools/bench/lifecycle/ok.ts', '@ostore/lifecycle/scan'],
];

const cases: Record<string, Case> = {
  appImportsApp: importing('apps/scanner/src/bad.ts', '../../gateway/src/app.module'),
  contractsImportsDataAccess: importing('libs/queue/contracts/src/bad.ts', '@ostore/shared/cassandra'),
  domainReadsFiles: importing('libs/s3/protocol/src/bad.ts', 'fs'),
  domainImportsNest: importing('libs/lifecycle/rules/src/bad.ts', '@nestjs/common'),
  e2eImportsFeature: importing('apps/system-e2e/test/bad.int-spec.ts', '@ostore/s3/core'),
  e2eImportsDataAccess: importing('apps/system-e2e/test/bad.int-spec.ts', '@ostore/metastore/data-access'),
  benchImportsApp: importing('tools/bench/lifecycle/bad.ts', '../../../apps/gateway/src/app.module'),
  benchImportsDeep: importing('tools/bench/bad.ts', '../../libs/s3/core/src/objects.service'),
  libImportsBench: importing('libs/s3/core/src/bad.ts', '../../../../tools/bench/lib/units'),
  ...Object.fromEntries(
    outOfScope.map(([who, file, target]) => [`out of scope: ${who}`, importing(file, target)]),
  ),
  ...Object.fromEntries(inScope.map(([who, file, target]) => [`in scope: ${who}`, importing(file, target)])),
};

/**
 * Lints every case in one ESLint process (the Nx project graph is loaded once), with the
 * workspace's eslint.config.mjs exactly as `npm run lint` would lint that code in that file.
 */
function lintCases(all: Record<string, Case>): Record<string, Message[]> {
  const script = `
    const { ESLint } = require('eslint');
    const { resolve } = require('path');
    let input = '';
    process.stdin.on('data', (d) => (input += d)).on('end', async () => {
      const eslint = new ESLint({ cwd: process.cwd() });
      const out = {};
      for (const [name, c] of Object.entries(JSON.parse(input))) {
        const [result] = await eslint.lintText(c.code, { filePath: resolve(c.file) });
        out[name] = result.messages.map((m) => ({ ruleId: m.ruleId, message: m.message }));
      }
      process.stdout.write(JSON.stringify(out));
    });`;
  const out = execFileSync(process.execPath, ['-e', script], {
    cwd: root,
    input: JSON.stringify(all),
    env: { ...process.env, NX_DAEMON: 'false' },
    maxBuffer: 64 * 1024 * 1024,
  });
  return JSON.parse(out.toString());
}

/** The boundary rules are only worth something if they fail the lint; these fixtures prove they do. */
describe('module boundaries (npm run lint)', () => {
  let results: Record<string, Message[]>;

  beforeAll(() => {
    execFileSync(process.execPath, [resolve(root, 'node_modules/nx/dist/bin/nx.js'), 'show', 'projects'], {
      cwd: root,
      env: { ...process.env, NX_DAEMON: 'false' },
    });
    results = lintCases(cases);
  }, 300000);

  /** The boundary errors of a case. */
  const lint = (name: string): string[] =>
    results[name].filter((m) => m.ruleId === '@nx/enforce-module-boundaries').map((m) => m.message);
  const lintAll = (name: string): string[] => results[name].map((m) => m.message);

  it('fails an app importing another app', () => {
    const messages = lint('appImportsApp');
    expect(messages.length).toBeGreaterThan(0);
    expect(messages.join('\n')).toMatch(/Projects cannot be imported|can only depend on libs/);
  });

  it('fails a contracts lib importing a data-access lib', () => {
    expect(lint('contractsImportsDataAccess').join('\n')).toContain('type:contracts');
  });

  it('fails a pure domain lib doing I/O', () => {
    expect(lintAll('domainReadsFiles').join('\n')).toMatch(/'fs' import is restricted/);
    expect(lintAll('domainImportsNest').join('\n')).toMatch(/restricted|can only depend|banned/);
  });

  it.each(outOfScope)('fails %s importing a project outside its scopes', (who, _file, _target, scope) => {
    expect(lint(`out of scope: ${who}`).join('\n')).toContain(
      `A project tagged with "${scope}" can only depend on libs tagged with`,
    );
  });

  it.each(inScope)('accepts %s', (who) => {
    expect(lintAll(`in scope: ${who}`).join('\n')).not.toMatch(/ignored/i);
    expect(lint(`in scope: ${who}`)).toEqual([]);
  });

  it('keeps e2e specs black-box: no feature or data-access lib', () => {
    expect(lint('e2eImportsFeature').join('\n')).toContain(
      'A project tagged with "type:e2e" can only depend on libs tagged with',
    );
    expect(lint('e2eImportsDataAccess').join('\n')).toContain('type:e2e');
  });

  it('holds the bench to the rules: never an app, no deep import, and nothing imports it', () => {
    const app = lint('benchImportsApp');
    expect(app.length).toBeGreaterThan(0);
    expect(app.join('\n')).toMatch(/Projects cannot be imported|Imports of apps are forbidden/);
    expect(lint('benchImportsDeep').join('\n')).toMatch(
      /Projects cannot be imported by a relative or absolute path/,
    );
    expect(lint('libImportsBench').join('\n')).toMatch(
      /Projects cannot be imported|Imports of apps are forbidden/,
    );
  });
});
