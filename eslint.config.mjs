import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

/**
 * Module boundaries (see shared/design/STYLE.md): every project carries a `scope:` and a `type:` tag,
 * and an import must satisfy both rules of its project (tools/lint/module-boundaries.spec.ts proves they fail).
 *
 * type: what layer may use what.
 *   app, feature -> feature, data-access, domain, contracts, util; data-access -> data-access, domain,
 *   contracts, util; contracts -> contracts, domain, util; domain -> domain, util and never I/O;
 *   util -> util; e2e (black-box specs that run the apps as processes) -> util, contracts, domain;
 *   tool (tools/bench) -> feature, data-access, domain, contracts, util.
 *   Nothing depends on an app, an e2e project or a tool.
 * scope: which part of the system may use what (every scope may also use tools, the test support,
 * in its specs and testing entry points):
 *   shared -> shared; tools -> tools, shared, metastore;
 *   metastore -> metastore, shared, and the domain types of what it stores (folders, lifecycle);
 *   storage -> storage, metastore, shared; queue -> queue, metastore, shared;
 *   folders -> folders, metastore, storage, queue, shared;
 *   lifecycle, s3 -> lifecycle, s3, metastore, storage, queue, shared;
 *   runtime (libs/shared/runtime: app boot, base config, migrate CLI) -> runtime, metastore, queue, shared;
 *   snapshot (libs/stats/snapshot*: the scan snapshots, written by the scanner, read by stats and the
 *   gateway's admin API) -> snapshot, metastore, shared.
 * An app's scope (gateway, scanner, scheduler, stats) also tags the libs that only that app uses
 * (lifecycle-scan is the scanner's), and no other app or lib may import them:
 *   gateway -> gateway, shared, metastore, storage, queue, lifecycle, s3, runtime;
 *   scanner, scheduler -> their own, the same lib scopes and folders;
 *   stats -> stats, snapshot, shared, metastore, queue, runtime (gateway, scanner, scheduler also snapshot).
 *   system (e2e) -> any lib scope; bench -> any lib scope, scanner and stats (it times the local scan
 *   and the usage-event store).
 */
const ioModules = [
  'cassandra-driver',
  'kafkajs',
  '@nestjs/*',
  'fs',
  'node:fs',
  'fs/promises',
  'node:fs/promises',
  'net',
  'node:net',
  'http',
  'node:http',
  'child_process',
  'node:child_process',
];

const libScopes = ['shared', 'tools', 'metastore', 'storage', 'queue', 'folders', 'lifecycle', 's3', 'runtime', 'snapshot'];
/** `scope:<source>` may only import projects of `scope:<one of targets>`. */
const scopeRule = (source, targets) => ({
  sourceTag: `scope:${source}`,
  onlyDependOnLibsWithTags: targets.map((t) => `scope:${t}`),
});
const appLibScopes = ['shared', 'tools', 'metastore', 'storage', 'queue', 'lifecycle', 's3', 'runtime', 'snapshot'];
const scopeConstraints = [
  scopeRule('shared', ['shared', 'tools']),
  scopeRule('tools', ['tools', 'shared', 'metastore']),
  scopeRule('metastore', ['metastore', 'folders', 'lifecycle', 'shared', 'tools']),
  scopeRule('storage', ['storage', 'metastore', 'shared', 'tools']),
  scopeRule('queue', ['queue', 'metastore', 'shared', 'tools']),
  scopeRule('folders', ['folders', 'metastore', 'storage', 'queue', 'shared', 'tools']),
  scopeRule('lifecycle', ['lifecycle', 's3', 'metastore', 'storage', 'queue', 'shared', 'tools']),
  scopeRule('s3', ['s3', 'lifecycle', 'metastore', 'storage', 'queue', 'shared', 'tools']),
  scopeRule('runtime', ['runtime', 'metastore', 'queue', 'shared', 'tools']),
  scopeRule('snapshot', ['snapshot', 'metastore', 'shared', 'tools']),
  scopeRule('gateway', ['gateway', ...appLibScopes]),
  scopeRule('scanner', ['scanner', 'folders', ...appLibScopes]),
  scopeRule('scheduler', ['scheduler', 'folders', ...appLibScopes]),
  scopeRule('stats', ['stats', 'snapshot', 'shared', 'tools', 'metastore', 'queue', 'runtime']),
  scopeRule('system', libScopes),
  scopeRule('bench', [...libScopes, 'scanner', 'stats']),
];

export default [
  { ignores: ['node_modules/**', 'dist/**', '.stack/**', 'tmp/**', '.nx/**', '**/lint-fixtures/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    plugins: { '@nx': nx },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@nx/enforce-module-boundaries': [
        'error',
        {
          enforceBuildableLibDependency: false,
          allow: [],
          banTransitiveDependencies: false,
          depConstraints: [
            {
              sourceTag: 'type:app',
              onlyDependOnLibsWithTags: ['type:feature', 'type:data-access', 'type:domain', 'type:contracts', 'type:util'],
            },
            {
              sourceTag: 'type:feature',
              onlyDependOnLibsWithTags: ['type:feature', 'type:data-access', 'type:domain', 'type:contracts', 'type:util'],
            },
            {
              sourceTag: 'type:data-access',
              onlyDependOnLibsWithTags: ['type:data-access', 'type:domain', 'type:contracts', 'type:util'],
            },
            { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: ['type:contracts', 'type:domain', 'type:util'] },
            { sourceTag: 'type:domain', onlyDependOnLibsWithTags: ['type:domain', 'type:util'], bannedExternalImports: ioModules },
            { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:util'] },
            { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:util', 'type:contracts', 'type:domain'] },
            {
              sourceTag: 'type:tool',
              onlyDependOnLibsWithTags: ['type:feature', 'type:data-access', 'type:domain', 'type:contracts', 'type:util'],
            },
            ...scopeConstraints,
          ],
        },
      ],
    },
  },
  {
    // Domain libs are pure: no Node I/O modules (the Nx rule's bannedExternalImports covers npm packages only).
    files: ['libs/s3/protocol/src/**/*.ts', 'libs/s3/policy/src/**/*.ts', 'libs/s3/crypto/src/**/*.ts', 'libs/lifecycle/rules/src/**/*.ts', 'libs/queue/contracts/src/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/spec-support/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['fs', 'node:fs', 'fs/promises', 'node:fs/promises', 'net', 'node:net', 'http', 'node:http', 'https', 'node:https', 'child_process', 'node:child_process', 'dgram', 'node:dgram', 'cassandra-driver', 'kafkajs'],
          patterns: ['@nestjs/*'],
        },
      ],
    },
  },
  {
    // plain CommonJS glue that Jest loads directly (global setup, sequencer)
    files: ['**/*.js', '**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off', '@nx/enforce-module-boundaries': 'off' },
  },
  {
    files: ['**/*.spec.ts', '**/test/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off', '@typescript-eslint/no-require-imports': 'off' },
  },
];
