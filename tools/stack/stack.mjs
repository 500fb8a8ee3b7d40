#!/usr/bin/env node
// OStore local stack CLI: Cassandra 5.0 + Kafka 3.9 (KRaft) from Maven Central jars, no Docker.
// Usage: node tools/stack/stack.mjs <command> [options]   (see ./README.md; the code is in ./cli.cjs)
import cli from './cli.cjs';

cli.run(process.argv.slice(2));
