// Runs the `main(argv)` of a lifecycle bench written in TypeScript (compiled on the fly by swc, as
// `npm start` runs the apps) and exits with its code: the shared body of the *.mjs launchers here.
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

/** `entry` is relative to the launcher whose `import.meta.url` is `launcherUrl`. */
export function runMain(launcherUrl, entry) {
  process.env.SWC_NODE_PROJECT ??= resolve(root, 'tsconfig.base.json');
  const require = createRequire(launcherUrl);
  require('@swc-node/register');
  const { main } = require(entry);
  main(process.argv.slice(2)).then(
    (code) => process.exit(code ?? 0),
    (err) => {
      process.stderr.write(`${err?.stack ?? err}\n`);
      process.exit(1);
    },
  );
}
