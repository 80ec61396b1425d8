import type { Kafka } from 'kafkajs';

// The one place that maps our opaque KafkaClient to the kafkajs instance behind it. Not exported from the
// lib's index: outside libs/kafka nobody can reach kafkajs through a KafkaClient (README: swapping the client).

/**
 * A connection to the brokers, handed to every other function of this lib (createKafka makes it). Opaque on
 * purpose: no type of the client library behind it (kafkajs today) leaves libs/kafka, so replacing that library
 * is this lib's change.
 */
export interface KafkaClient {
  readonly clientId: string;
  readonly brokers: readonly string[];
}

const instances = new WeakMap<KafkaClient, { kafka: Kafka; groups: Kafka }>();

export function bindKafkajs(client: KafkaClient, kafka: Kafka, groups: Kafka): KafkaClient {
  instances.set(client, { kafka, groups });
  return client;
}

function bound(client: KafkaClient): { kafka: Kafka; groups: Kafka } {
  const found = instances.get(client);
  if (!found) throw new TypeError('not a KafkaClient made by createKafka()');
  return found;
}

/** Producers, admin clients, probes. */
export function kafkajsOf(client: KafkaClient): Kafka {
  return bound(client).kafka;
}

/** Consumer group members: the same brokers, with request timeouts that outlast a rebalance (createKafka). */
export function kafkajsGroupsOf(client: KafkaClient): Kafka {
  return bound(client).groups;
}
