import { execFileSync } from 'child_process';
import { resolve } from 'path';

const root = resolve(__dirname, '../..');

/** The boundary rules are only worth something if they fail the lint; these fixtures prove they do. */
describe('module boundaries (npm run lint)', () => {
  beforeAll(() => {
    execFileSync(process.execPath, [resolve(root, 'node_modules/nx/dist/bin/nx.js'), 'show', 'projects'], {
      cwd: root,
      env: { ...process.env, NX_DAEMON: 'false' },
    });
  }, 120000);

  /** Lints `code` as if it were `file`, exactly as `npm run lint` would, and returns the boundary errors. */
  const lint = async (file: string, code: string): Promise<string[]> =>
    (await lintMessages(file, code)).filter((m) => m.ruleId === '@nx/enforce-module-boundaries').map((m) => m.message);
  const lintAll = async (file: string, code: string): Promise<string[]> => (await lintMessages(file, code)).map((m) => m.message);
  const lintMessages = async (file: string, code: string): Promise<{ ruleId: string; message: string }[]> => {
    let out: string;
    try {
      out = execFileSync(
        process.execPath,
        [
          resolve(root, 'node_modules/eslint/bin/eslint.js'),
          '--format',
          'json',
          '--stdin',
          '--stdin-filename',
          file,
        ],
        {
          cwd: root,
          input: code,
          env: { ...process.env, NX_DAEMON: 'false' },
        },
      ).toString();
    } catch (e) {
      const err = e as { stdout?: Buffer; message: string };
      if (!err.stdout) throw e;
      out = String(err.stdout);
    }
    const [result] = JSON.parse(out) as { messages: { ruleId: string; message: string }[] }[];
    return result.messages;
  };

  it('fails an app importing another app', async () => {
    const messages = await lint(
      'apps/scanner/src/bad.ts',
      "import { AppModule } from '../../gateway/src/app.module';\nexport const x = AppModule;\n",
    );
    expect(messages.length).toBeGreaterThan(0);
    expect(messages.join('\n')).toMatch(/Projects cannot be imported|can only depend on libs/);
  });

  it('fails a contracts lib importing a data-access lib', async () => {
    const messages = await lint(
      'libs/queue/contracts/src/bad.ts',
      "import { CassandraClient } from '@ostore/shared/cassandra';\nexport const x = CassandraClient;\n",
    );
    expect(messages.join('\n')).toContain('type:contracts');
  });

  it('fails a pure domain lib doing I/O', async () => {
    const messages = await lintAll('libs/s3/protocol/src/bad.ts', "import { readFileSync } from 'fs';\nexport const x = readFileSync;\n");
    expect(messages.join('\n')).toMatch(/'fs' import is restricted/);
    const nest = await lintAll('libs/lifecycle/rules/src/bad.ts', "import { Injectable } from '@nestjs/common';\nexport const x = Injectable;\n");
    expect(nest.join('\n')).toMatch(/restricted|can only depend|banned/);
  });

  it('accepts an app importing a lib through its alias', async () => {
    const messages = await lint(
      'apps/scanner/src/ok.ts',
      "import { Clock } from '@ostore/shared/clock';\nexport const x = Clock;\n",
    );
    expect(messages).toEqual([]);
  });
});
