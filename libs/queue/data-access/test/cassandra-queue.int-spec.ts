import { backendThroughTransport, queueContractSuite } from '../src/testing';
import { cassandraBackend } from './backends';

// Through the Nest transport: what the scheduler runs (the consumer itself is under it).
queueContractSuite('cassandra, through QueueTransport', async () =>
  backendThroughTransport(await cassandraBackend()),
);
