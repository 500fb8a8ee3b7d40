import 'reflect-metadata';
import { exitOnConfigError } from '@ostore/shared/config';
import { fatal, runApp } from '@ostore/shared/runtime';
import { AppModule } from './app.module';
import { loadGatewayConfig } from './config/gateway.config';

async function main(): Promise<void> {
  let config;
  try {
    config = loadGatewayConfig();
  } catch (e) {
    exitOnConfigError(e);
  }
  await runApp({ config, module: (deps) => AppModule.register(config, deps) });
}

main().catch(fatal('gateway'));
