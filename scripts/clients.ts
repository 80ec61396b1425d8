// `npm run clients`: generates a Python client (openapi-python-client) and a Go client (oapi-codegen)
// from GET /v0/openapi.json of a stack of its own, with zero warnings, and runs a merchant's journey with each:
// create a checkout session, PATCH it, pay it with the test helper, read the completed session and its event,
// list orders two pages at a time. Exits non-zero on any warning, missing operation or failed journey.
// Engines come from KAFKA_BROKERS / MONGODB_URL when set (as in `npm test`), else are started and cached.
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEngines } from '@checkout/engines';
import { AdminClient } from '@checkout/testing';
import { startProcessStack } from './lib/process-stack';
import { formatClientResult, generateAndRunClients } from './lib/clients';

const log = (line: string) => process.stderr.write(`[clients] ${line}\n`);

async function main(): Promise<number> {
  const runId = randomBytes(4).toString('hex');
  const workDir = join(tmpdir(), `checkout-clients-${runId}`);
  const engines = await startEngines({ log: (line) => log(`engines: ${line}`) });
  let stack: Awaited<ReturnType<typeof startProcessStack>> | undefined;
  try {
    stack = await startProcessStack({
      mongoUrl: engines.mongoUrl,
      kafkaBrokers: engines.kafkaBrokers,
      namePrefix: `clients_${runId}`,
      logLevel: 'warn',
      logDir: join(workDir, 'logs'),
    });
    const organization = await new AdminClient(stack.env.adminUrl, stack.env.adminToken).createOrganizationWithKeys(
      'Generated Clients',
    );
    log(`stack ready at ${stack.env.gatewayUrl}; generated code and logs in ${workDir}`);
    const { documentOperations, results } = await generateAndRunClients({
      gatewayUrl: stack.env.gatewayUrl,
      testKey: organization.testKey,
      workDir,
      log,
    });
    let failed = false;
    console.log(`\nGenerated clients from GET /v0/openapi.json (${documentOperations} operations)`);
    for (const result of results) {
      console.log(`  ${formatClientResult(result, documentOperations)}`);
      for (const warning of result.warnings) console.log(`    warning: ${warning}`);
      if (!result.journeyPassed)
        console.log(
          result.journeyOutput
            .split('\n')
            .map((line) => `    ${line}`)
            .join('\n'),
        );
      failed ||= result.warnings.length > 0 || result.operations !== documentOperations || !result.journeyPassed;
    }
    console.log(`CLIENTS RESULT: ${failed ? 'FAILED' : 'passed'}`);
    return failed ? 1 : 0;
  } finally {
    await stack?.stop();
    await engines.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : err);
    process.exit(1);
  },
);
