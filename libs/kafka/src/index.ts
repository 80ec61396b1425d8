// The lib's public API. No kafkajs type crosses it (README.md: how to swap the client library).
export { createKafka, kafkaReadinessCheck, type KafkaClient, type KafkaOptions } from './client';
export { runBatchConsumer, type BatchConsumerOptions } from './batch-consumer';
export { runConsumer } from './consumer';
export { runDelayedConsumer, type DelayedConsumerOptions } from './delayed-consumer';
export type { ConsumerHooks, ConsumerOptions } from './group-member';
export { HandlerFailedError, type RunningConsumer } from './kafkajs-accommodations';
export type { MessageContext, ParseResult, ReceivedMessage } from './messages';
export { drainTopic } from './drain';
export * from './metrics';
export * from './outbox';
export * from './producer';
export { consumerGroupLag, consumerGroupStates, ensureTopics, topicOffsets, type TopicSpec } from './topics';
