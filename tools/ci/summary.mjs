// Prints Jest's totals as the closing line CI reads: "N passed, N failed".
import { readFileSync } from 'node:fs';

const file = process.argv[2];
try {
  const r = JSON.parse(readFileSync(file, 'utf8'));
  const failed = r.numFailedTests + (r.numRuntimeErrorTestSuites ?? 0);
  console.log(`${r.numPassedTests} passed, ${failed} failed`);
} catch (e) {
  console.log(`could not read ${file}: ${e.message}`);
  console.log('0 passed, 1 failed');
}
