import { partitionOfKey } from './key-partitioner';
import { usagePartitionOf } from '../usage/kafka-usage.sink';

/** murmur2 of these keys as the Java client's own test has them (org.apache.kafka.common.utils.UtilsTest). */
const JAVA_MURMUR2: [string, number][] = [
  ['21', -973932308],
  ['foobar', -790332482],
  ['a-little-bit-long-string', -985981536],
  ['a-little-bit-longer-string', -1486304829],
  ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
  ['abc', 479470107],
];

describe('partitionOfKey', () => {
  it('places a key where the Java client puts it: (murmur2(key) & 0x7fffffff) % partitions', () => {
    for (const n of [1, 3, 24])
      for (const [key, hash] of JAVA_MURMUR2) expect(partitionOfKey(key, n)).toBe((hash & 0x7fffffff) % n);
  });

  it('places a bucket id as the usage publisher keys it, and refuses a partition count that is none', () => {
    const bucket = '1a2b3c4d-0000-4000-8000-00000000000a';
    expect(usagePartitionOf(bucket, 3)).toBe(partitionOfKey(bucket, 3));
    expect(() => partitionOfKey(bucket, 0)).toThrow(RangeError);
  });
});
