import { existsSync } from 'node:fs';

// Loaded with import() only: testcontainers pulls in dockerode and friends, which machines without Docker
// (and every run that uses external or local engines) should not pay for.

/** Confluent Platform 8.0 = Apache Kafka 4.0, KRaft only. */
const DOCKER_KAFKA_IMAGE = 'confluentinc/cp-kafka:8.0.0';
const DOCKER_MONGO_IMAGE = 'mongo:7';

/** A Docker engine is there if it is configured and testcontainers can actually talk to it. */
export async function dockerAvailable(env: Record<string, string | undefined>): Promise<boolean> {
  if (!env.DOCKER_HOST && !existsSync('/var/run/docker.sock')) return false;
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

export interface DockerKafka {
  brokers: string[];
  description: string;
  stop(): Promise<void>;
}

export async function startDockerKafka(): Promise<DockerKafka> {
  const { KafkaContainer } = await import('@testcontainers/kafka');
  const container = await new KafkaContainer(DOCKER_KAFKA_IMAGE).withKraft().start();
  const broker = `${container.getHost()}:${container.getMappedPort(9093)}`;
  return {
    brokers: [broker],
    description: `Apache Kafka 4.0 (${DOCKER_KAFKA_IMAGE}, KRaft, Docker) at ${broker}`,
    stop: async () => {
      await container.stop();
    },
  };
}

export interface DockerMongo {
  url: string;
  stop(): Promise<void>;
}

export async function startDockerMongo(): Promise<DockerMongo> {
  const { MongoDBContainer } = await import('@testcontainers/mongodb');
  const container = await new MongoDBContainer(DOCKER_MONGO_IMAGE).start();
  // The container runs a one-member replica set whose advertised host name is internal to Docker;
  // directConnection keeps the driver on the mapped port instead of following it.
  const url = `${container.getConnectionString()}/?directConnection=true`;
  return {
    url,
    stop: async () => {
      await container.stop();
    },
  };
}
