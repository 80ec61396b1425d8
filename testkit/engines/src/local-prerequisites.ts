import type { LocalMongoEngine } from './engine-settings';
import { ferretDbCached } from './local-ferretdb';
import { kafkaCached } from './local-kafka';
import { mongoJavaServerCached } from './local-mongo-java-server';
import { run, which } from './process';

/**
 * Checks all tools up front so a machine missing several gets one message naming all of them, rather than
 * one failure per attempt. Build tools are only required while the cache lacks the engine.
 */
export async function assertLocalPrerequisites(need: {
  kafka: boolean;
  mongo: LocalMongoEngine | undefined;
  dockerSkipped?: boolean;
}): Promise<void> {
  const missing: string[] = [];
  const javaMongo = need.mongo === 'mongo-java-server';
  if (need.kafka || javaMongo) {
    const java = await toolMajorVersion('java', ['-version'], /version "(?:1\.)?(\d+)/);
    if (java === undefined) missing.push('a JDK 17+ (`java` not found on PATH)');
    else if (java < 17) missing.push(`a JDK 17+ (found Java ${java})`);
    const needMaven = (need.kafka && !(await kafkaCached())) || (javaMongo && !(await mongoJavaServerCached()));
    if (needMaven && !(await which('mvn')))
      missing.push('Maven (`mvn`, to fetch the Kafka and mongo-java-server jars once)');
    if (javaMongo && !(await mongoJavaServerCached()) && !(await which('javac')))
      missing.push('`javac` (a JDK, to compile the mongo-java-server launcher once)');
  }
  if (need.mongo === 'ferretdb' && !(await ferretDbCached())) {
    const go = await toolMajorVersion('go', ['version'], /go1\.(\d+)/);
    if (go === undefined) missing.push('Go 1.22+ (`go`, to build FerretDB once)');
    else if (go < 22) missing.push(`Go 1.22+ (found go1.${go})`);
  }
  if (missing.length > 0) {
    throw new Error(
      `Cannot start Kafka/MongoDB engines: ${need.dockerSkipped ? 'Docker was not to be used' : 'no Docker engine is reachable'}, ` +
        `and running them locally needs ${missing.join(', ')}. ` +
        'Install these, or start Docker, or point KAFKA_BROKERS (host:port,...) and MONGODB_URL at running engines.',
    );
  }
}

async function toolMajorVersion(tool: string, args: string[], pattern: RegExp): Promise<number | undefined> {
  if (!(await which(tool))) return undefined;
  try {
    const { stdout, stderr } = await run(tool, args, { timeoutMs: 30_000 });
    const match = pattern.exec(`${stdout}\n${stderr}`);
    return match?.[1] === undefined ? 0 : Number(match[1]);
  } catch {
    return undefined;
  }
}
