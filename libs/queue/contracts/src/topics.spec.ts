import { partitionForHost, topicName } from './topics';

describe(topicName.name, () => {
  it('names topics s3-<cluster>-<queue>', () => {
    expect(topicName('dzen', 'versions')).toBe('s3-dzen-versions');
    expect(topicName('dev-1', 'object-folders')).toBe('s3-dev-1-object-folders');
  });

  it('rejects cluster names Kafka or our naming would mangle', () => {
    expect(() => topicName('Dzen', 'versions')).toThrow(/cluster name/);
    expect(() => topicName('a.b', 'versions')).toThrow(/cluster name/);
    expect(() => topicName('', 'versions')).toThrow(/cluster name/);
  });
});

describe(partitionForHost.name, () => {
  it('gives each host its own partition while hosts <= partitions', () => {
    const parts = [0, 1, 2].map((h) => partitionForHost(h, 3));
    expect(new Set(parts).size).toBe(3);
    expect(partitionForHost(5, 24)).toBe(5);
  });

  it('rejects nonsense', () => {
    expect(() => partitionForHost(-1, 3)).toThrow();
    expect(() => partitionForHost(0, 0)).toThrow();
  });
});
