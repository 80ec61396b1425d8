import { describe, expect, it } from 'vitest';
import { KAFKA_VERSION, newClusterId, renderLog4j2Config, renderPom, renderServerProperties } from './local-kafka';
import { parseBrokers } from './index';

const parseProperties = (text: string) =>
  Object.fromEntries(
    text
      .split('\n')
      .filter((line) => line && !line.startsWith('#'))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );

describe('renderServerProperties', () => {
  it('describes a single-node KRaft broker+controller on loopback', () => {
    const props = parseProperties(
      renderServerProperties({ port: 41000, controllerPort: 41001, dataDir: '/tmp/run/kafka/data' }),
    );
    expect(props).toMatchObject({
      'process.roles': 'broker,controller',
      'node.id': '1',
      'controller.quorum.voters': '1@127.0.0.1:41001',
      listeners: 'PLAINTEXT://127.0.0.1:41000,CONTROLLER://127.0.0.1:41001',
      'advertised.listeners': 'PLAINTEXT://127.0.0.1:41000',
      'controller.listener.names': 'CONTROLLER',
      'inter.broker.listener.name': 'PLAINTEXT',
      'log.dirs': '/tmp/run/kafka/data',
      'offsets.topic.replication.factor': '1',
      'offsets.topic.num.partitions': '1',
      'transaction.state.log.replication.factor': '1',
      'transaction.state.log.min.isr': '1',
      'group.initial.rebalance.delay.ms': '0',
      'auto.create.topics.enable': 'false',
    });
  });
});

describe('renderServerProperties for a three-node cluster', () => {
  it('describes node 2 of a static three-voter quorum with replicated internal topics and min ISR 2', () => {
    const props = parseProperties(
      renderServerProperties({
        port: 41002,
        controllerPort: 41012,
        dataDir: '/tmp/run/kafka-2/data',
        cluster: { nodeId: 2, controllerPorts: [41011, 41012, 41013] },
      }),
    );
    expect(props).toMatchObject({
      'process.roles': 'broker,controller',
      'node.id': '2',
      'controller.quorum.voters': '1@127.0.0.1:41011,2@127.0.0.1:41012,3@127.0.0.1:41013',
      listeners: 'PLAINTEXT://127.0.0.1:41002,CONTROLLER://127.0.0.1:41012',
      'offsets.topic.replication.factor': '3',
      'transaction.state.log.replication.factor': '3',
      'transaction.state.log.min.isr': '2',
      'default.replication.factor': '3',
      'min.insync.replicas': '2',
    });
  });
});

describe('renderLog4j2Config', () => {
  it('sends WARN and above to the given file', () => {
    const config = parseProperties(renderLog4j2Config('/tmp/run/kafka.log').replace(/ = /g, '='));
    expect(config['appender.file.fileName']).toBe('/tmp/run/kafka.log');
    expect(config['rootLogger.level']).toBe('warn');
  });
});

describe('renderPom', () => {
  it('pins the broker version and the slf4j binding', () => {
    expect(renderPom()).toContain(`<artifactId>kafka_2.13</artifactId>\n      <version>${KAFKA_VERSION}</version>`);
    expect(renderPom()).toContain('<artifactId>log4j-slf4j-impl</artifactId>');
  });
});

describe('newClusterId', () => {
  it('is 22 characters of URL-safe base64, different every time', () => {
    const id = newClusterId();
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(newClusterId()).not.toBe(id);
  });
});

describe('parseBrokers', () => {
  it('splits and trims, and treats empty as not given', () => {
    expect(parseBrokers(' a:9092, b:9093 ,')).toEqual(['a:9092', 'b:9093']);
    expect(parseBrokers('')).toBeUndefined();
    expect(parseBrokers(undefined)).toBeUndefined();
  });
});
