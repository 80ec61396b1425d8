// The laptop compose stack's first run: every secret generated at random into one env file per
// service in the `secrets` volume, never a known default. A later run finds the files and leaves them as they are
// (the databases and the operator's admin token outlive a restart). Each service's entrypoint reads its file
// (CHECKOUT_ENV_FILE). Prints where the admin token is, never the token itself.
//   docker compose run --rm secrets            (compose runs it before the services)
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateLocalSecrets, type LocalSecretsOwner } from '@checkout/config';

export const SECRETS_DIR_DEFAULT = '/secrets';

/** Writes `<dir>/<owner>.env` for every service and job unless the directory already holds them. */
export function writeStackSecrets(dir: string): { created: boolean; files: string[] } {
  const files = (
    [
      'gateway',
      'orders',
      'sessions',
      'webhook-dispatcher',
      'dead-letter-replay',
    ] as const satisfies readonly LocalSecretsOwner[]
  ).map((owner) => join(dir, `${owner}.env`));
  if (files.every((file) => existsSync(file))) return { created: false, files };
  mkdirSync(dir, { recursive: true });
  const { env } = generateLocalSecrets();
  for (const [owner, values] of Object.entries(env)) {
    const lines = Object.entries(values).map(([key, value]) => `${key}=${value}`);
    writeFileSync(
      join(dir, `${owner}.env`),
      `# Generated on first run (deploy/scripts/generate-secrets.ts); secrets of ${owner}.\n${lines.join('\n')}\n`,
      { mode: 0o600 },
    );
  }
  return { created: true, files };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = process.env.SECRETS_DIR ?? SECRETS_DIR_DEFAULT;
  const { created } = writeStackSecrets(dir);
  console.log(
    created
      ? `generated the stack's secrets in ${dir}; the operator token is ADMIN_TOKEN in ${join(dir, 'gateway.env')}`
      : `secrets already in ${dir}; kept`,
  );
}
