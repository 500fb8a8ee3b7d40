#!/usr/bin/env node
// `npm start`: the whole system on this machine. Starts (or finds) the local Cassandra + Kafka
// stack, applies the metastore migrations, then runs the four apps in the foreground with their
// JSON logs prefixed by app name. Ctrl-C (SIGINT) or SIGTERM stops the apps gracefully; the stack
// keeps running (`npm run stack:down` stops it).
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import readline from 'node:readline';

const require = createRequire(import.meta.url);
const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const stack = require('../stack/index.cjs');

const S3_PORT = process.env.S3_PORT ?? '9000';
const dev = {
  user: process.env.OSTORE_DEV_USER ?? 'dev',
  accessKeyId: process.env.OSTORE_DEV_ACCESS_KEY_ID ?? 'OSTOREDEVACCESSKEY01',
  secretAccessKey: process.env.OSTORE_DEV_SECRET_ACCESS_KEY ?? 'ostore-dev-secret-access-key-0000000000000',
};
const apps = [
  { name: 'gateway', env: { S3_PORT, S3_BOOTSTRAP_USER: dev.user, S3_BOOTSTRAP_ACCESS_KEY_ID: dev.accessKeyId, S3_BOOTSTRAP_SECRET_ACCESS_KEY: dev.secretAccessKey } },
  { name: 'scanner', env: {} },
  { name: 'scheduler', env: {} },
  { name: 'stats', env: {} },
];

const info = await stack.ensureStackUp({});
const baseEnv = {
  ...process.env,
  CASSANDRA_CONTACT_POINTS: info.cassandra.host,
  CASSANDRA_PORT: String(info.cassandra.port),
  KAFKA_BROKERS: info.kafka.brokers.join(','),
};

const migrate = spawnSync(process.execPath, ['-r', '@swc-node/register', 'libs/shared/runtime/src/cli/migrate.ts'], {
  cwd: root,
  env: baseEnv,
  stdio: 'inherit',
});
if (migrate.status !== 0) process.exit(migrate.status ?? 1);

const children = new Map();
let stopping = false;

function stopAll(code) {
  if (stopping) return;
  stopping = true;
  for (const child of children.values()) child.kill('SIGTERM');
  const force = setTimeout(() => {
    for (const child of children.values()) child.kill('SIGKILL');
  }, 30000);
  force.unref();
  const wait = setInterval(() => {
    if (children.size === 0) {
      clearInterval(wait);
      process.exit(code);
    }
  }, 100);
}

for (const app of apps) {
  const child = spawn(process.execPath, ['--enable-source-maps', '-r', '@swc-node/register', `apps/${app.name}/src/main.ts`], {
    cwd: root,
    env: { ...baseEnv, ...app.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.set(app.name, child);
  const pad = app.name.padEnd(9);
  for (const stream of [child.stdout, child.stderr]) {
    readline.createInterface({ input: stream }).on('line', (line) => process.stdout.write(`${pad}| ${line}\n`));
  }
  child.on('exit', (code, signal) => {
    children.delete(app.name);
    process.stdout.write(`${pad}| exited (${signal ?? code})\n`);
    if (!stopping) {
      process.stdout.write(`${app.name} stopped unexpectedly; stopping the others\n`);
      stopAll(1);
    }
  });
}

process.on('SIGINT', () => stopAll(0));
process.on('SIGTERM', () => stopAll(0));

process.stdout.write(
  [
    '',
    `OStore is starting: S3 on http://127.0.0.1:${S3_PORT}`,
    '  management: gateway :9100, scanner :9101, scheduler :9102, stats :9103 (/health/live, /health/ready, /metrics)',
    `  dev credentials: AWS_ACCESS_KEY_ID=${dev.accessKeyId} AWS_SECRET_ACCESS_KEY=${dev.secretAccessKey}`,
    `  try: aws --endpoint-url http://127.0.0.1:${S3_PORT} s3 mb s3://my-bucket`,
    '',
  ].join('\n'),
);
