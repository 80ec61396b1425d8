// `npm test`: typecheck, format check, lint, audit, then every tier of vitest.config.ts (unit, integration, chaos, e2e,
// soak, rollout) against ONE pair of real engines that this script starts, shares with every test worker
// (KAFKA_BROKERS / MONGODB_URL) and stops at the end.
//   npm test                      everything
//   npm test -- --project e2e     one tier (any vitest arguments pass through)
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { startEngines, type Engines } from '@checkout/engines';
import { serveEngineControl } from '@checkout/testing';
import { runAudit } from './lib/audit';

const args = process.argv.slice(2);
const log = (line: string) => process.stderr.write(`[test] ${line}\n`);

function run(command: string, commandArgs: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, commandArgs, { stdio: 'inherit', env });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

async function main(): Promise<number> {
  const started = Date.now();
  // Ctrl-C reaches vitest too (same process group); stay alive until it exits so the engines are stopped.
  process.on('SIGINT', () => log('interrupted: stopping'));
  process.on('SIGTERM', () => log('terminated: stopping'));
  if (args.length === 0) {
    log('typecheck (npm run typecheck)');
    const typecheck = await run('npm', ['run', '--silent', 'typecheck']);
    if (typecheck !== 0) return typecheck;
    log('format (npm run format:check; `npm run format` rewrites)');
    const format = await run('npm', ['run', '--silent', 'format:check']);
    if (format !== 0) return format;
    log('lint (npm run lint: import cycles, then ESLint with the layering rules of docs/engineering.md)');
    const lint = await run('npm', ['run', '--silent', 'lint']);
    if (lint !== 0) return lint;
    // Known vulnerabilities in what the images run, against the documented allow-list.
    const audit = await runAudit(process.cwd(), log);
    if (audit !== 0) return audit;
  }
  if (existsSync('scripts/ensure-chromium.sh')) {
    const browser = await run('bash', ['scripts/ensure-chromium.sh']);
    if (browser !== 0) log('chromium is not available: the hosted-page browser tests will fail');
  }
  let engines: Engines | undefined;
  let control: Awaited<ReturnType<typeof serveEngineControl>> | undefined;
  const env = { ...process.env };
  if (!(env.KAFKA_BROKERS && env.MONGODB_URL)) {
    engines = await startEngines({ log: (line) => log(`engines: ${line}`) });
    control = await serveEngineControl(engines);
    Object.assign(env, {
      KAFKA_BROKERS: engines.kafkaBrokers.join(','),
      MONGODB_URL: engines.mongoUrl,
      ENGINES_DESCRIPTION: engines.description,
      ENGINES_CONTROL_URL: control.url,
    });
  }
  log(`engines: ${env.ENGINES_DESCRIPTION ?? `${env.KAFKA_BROKERS} / ${env.MONGODB_URL}`}`);
  let code: number;
  try {
    code = await run('npx', ['vitest', 'run', ...args], env);
  } finally {
    await control?.close();
    await engines?.stop();
  }
  log(`finished in ${((Date.now() - started) / 1000).toFixed(0)} s with exit code ${code}`);
  return code;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
