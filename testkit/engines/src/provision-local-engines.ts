import { defaultLog, localMongoEngine, type LocalMongoEngine } from './engine-settings';
import { provisionFerretDb } from './local-ferretdb';
import { provisionKafka } from './local-kafka';
import { provisionMongoJavaServer } from './local-mongo-java-server';
import { assertLocalPrerequisites } from './local-prerequisites';

/** Builds (or finds in the cache) the local engines without starting them. */
export async function provisionLocalEngines(
  options: { log?: (line: string) => void; env?: Record<string, string | undefined> } = {},
): Promise<{ kafkaLibs: string; mongoEngine: LocalMongoEngine; mongoBuild: string }> {
  const log = options.log ?? defaultLog;
  const mongoEngine = localMongoEngine(options.env ?? process.env);
  await assertLocalPrerequisites({ kafka: true, mongo: mongoEngine });
  const [kafkaLibs, mongoBuild] = await Promise.all([provisionKafka({ log }), provisionLocalMongo(mongoEngine, log)]);
  return { kafkaLibs, mongoEngine, mongoBuild };
}

export function provisionLocalMongo(engine: LocalMongoEngine, log: (line: string) => void): Promise<string> {
  return engine === 'ferretdb' ? provisionFerretDb({ log }) : provisionMongoJavaServer({ log });
}
