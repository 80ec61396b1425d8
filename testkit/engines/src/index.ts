export {
  KAFKA_VERSION,
  kafkaArchiveFlags,
  provisionKafka,
  startLocalKafka,
  type LocalKafka,
  type ScramUser,
} from './local-kafka';
export {
  countUnderReplicated,
  startLocalKafkaCluster,
  type LocalKafkaCluster,
  type LocalKafkaNode,
} from './local-kafka-cluster';
export { FERRETDB_VERSION, pingMongo } from './local-ferretdb';
export {
  MONGO_JAVA_SERVER_VERSION,
  provisionMongoJavaServer,
  startLocalMongoJavaServer,
  type MongoJavaServerBackend,
} from './local-mongo-java-server';
export { provisionFerretDb, startLocalFerretDb } from './local-ferretdb';
export {
  freePort,
  freePorts,
  spawnGuarded,
  type GuardedProcess,
  type ExitInfo,
  type SpawnGuardedOptions,
} from './process';
export { cacheRoot, ensureCached } from './cache';
export { identifyMongoEngine, type MongoEngineFamily, type MongoEngineIdentity } from './mongo-identity';
export { readQueryPlan, type QueryPlan } from './query-plan';
export { waitFor } from './wait';
export { localMongoEngine, parseBrokers, type LocalMongoEngine } from './engine-settings';
export {
  startEngines,
  type Engines,
  type EnginesInfo,
  type EnginesKind,
  type StartEnginesOptions,
} from './start-engines';
export { provisionLocalEngines } from './provision-local-engines';
export { describeMongo, identifyMongo } from './identify-mongo';
