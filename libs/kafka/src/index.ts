// The lib's public API. No kafkajs type crosses it (README.md: how to swap the client library).
export { createKafka, kafkaReadinessCheck, type KafkaClient, type KafkaOptions } from './client';
export {
  HandlerFailedError,
  runBatchConsumer,
  runConsumer,
  runDelayedConsumer,
  type BatchConsumerOptions,
  type ConsumerOptions,
  type DelayedConsumerOptions,
  type MessageContext,
  type ParseResult,
  type ReceivedMessage,
  type RunningConsumer,
} from './consumer';
export { drainTopic } from './drain';
export * from './metrics';
export * from './outbox';
export * from './producer';
export { consumerGroupLag, consumerGroupStates, ensureTopics, topicOffsets, type TopicSpec } from './topics';
