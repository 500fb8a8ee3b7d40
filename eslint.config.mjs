import nx from '@nx/eslint-plugin';
import tseslint from 'typescript-eslint';

/**
 * Module boundaries (see shared/design/STYLE.md): every project carries a `scope:` and a `type:` tag.
 * app -> feature, data-access, domain, contracts, util; data-access -> domain, contracts, util;
 * domain -> domain, util and never I/O; nothing depends on an app.
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
            { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['*'] },
          ],
        },
      ],
    },
  },
  {
    // Domain libs are pure: no Node I/O modules (the Nx rule's bannedExternalImports covers npm packages only).
    files: ['libs/s3/protocol/src/**/*.ts', 'libs/lifecycle/rules/src/**/*.ts', 'libs/queue/contracts/src/**/*.ts'],
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
