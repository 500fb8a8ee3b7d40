import { backendThroughTransport, queueContractSuite } from '../src/testing';
import { kafkaBackend } from './backends';

// Through the Nest transport: what the scheduler runs (the consumer itself is under it).
queueContractSuite('kafka, through QueueTransport', async () =>
  backendThroughTransport(await kafkaBackend()),
);
