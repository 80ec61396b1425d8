import type { Kafka } from 'kafkajs';
import type { KafkaClient } from './client';

// The one place that maps our opaque KafkaClient to the kafkajs instance behind it. Not exported from the
// lib's index: outside libs/kafka nobody can reach kafkajs through a KafkaClient (README: swapping the client).

const instances = new WeakMap<KafkaClient, Kafka>();

export function bindKafkajs(client: KafkaClient, kafka: Kafka): KafkaClient {
  instances.set(client, kafka);
  return client;
}

export function kafkajsOf(client: KafkaClient): Kafka {
  const kafka = instances.get(client);
  if (!kafka) throw new TypeError('not a KafkaClient made by createKafka()');
  return kafka;
}
