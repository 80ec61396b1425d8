// Operator CLI for the admin API (D38). Reads the running local stack from .stack.json, or ADMIN_URL and
// ADMIN_TOKEN from the environment (any deployment).
//   npm run admin -- help
import { existsSync, readFileSync } from 'node:fs';
import { AdminClient } from '@checkout/testing';

const USAGE = `usage: npm run admin -- <command> [arguments]
  org:create <name>                                   create an organization with a test and a live key
  org:list
  key:create <orgId> <test|live>                      the secret is printed once
  key:list <orgId>
  key:revoke <orgId> <keyId>
  location:create <orgId> <test|live> <name>
  location:list <orgId> <test|live>
  destination:create <orgId> <test|live> <address> [--status=active|inactive] [--verified]
  destination:update <orgId> <test|live> <pdId> [--status=active|inactive|deleted] [--verified=true|false]
  destination:list <orgId> <test|live>
  settings:get <orgId> <test|live>
  settings:set <orgId> <test|live> [--callback-url=<url>|--callback-url=none] [--methods=card,stablecoin,stored_value] [--signing=on|off]
environment: ADMIN_URL (the gateway's operators' listener, ADMIN_PORT: e.g. http://127.0.0.1:8081 through
kubectl port-forward svc/gateway-internal 8081) and ADMIN_TOKEN, or a running \`npm start\` (.stack.json)`;

function connection(): AdminClient {
  let url = process.env.ADMIN_URL;
  let token = process.env.ADMIN_TOKEN;
  if ((!url || !token) && existsSync('.stack.json')) {
    const stack = JSON.parse(readFileSync('.stack.json', 'utf8')) as { adminUrl: string; adminToken: string };
    url ??= stack.adminUrl;
    token ??= stack.adminToken;
  }
  if (!url || !token) throw new Error('Set ADMIN_URL and ADMIN_TOKEN, or start the local stack with `npm start`.');
  return new AdminClient(url, token);
}

function flags(args: string[]): { positional: string[]; options: Map<string, string> } {
  const options = new Map<string, string>();
  const positional: string[] = [];
  for (const arg of args) {
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (match?.[1]) options.set(match[1], match[2] ?? 'true');
    else positional.push(arg);
  }
  return { positional, options };
}

function need(values: string[], count: number): string[] {
  if (values.length < count) throw new Error(USAGE);
  return values;
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  if (!command || command === 'help' || command === '--help') {
    console.log(USAGE);
    return;
  }
  const { positional: p, options } = flags(rest);
  const admin = connection();
  const print = (value: unknown) => console.log(JSON.stringify(value, null, 2));
  switch (command) {
    case 'org:create': {
      const [name] = need(p, 1);
      print(await admin.createOrganizationWithKeys(name as string));
      console.error('The keys above are shown only once.');
      return;
    }
    case 'org:list':
      return print(await admin.call('GET', '/organizations'));
    case 'key:create': {
      const [org, mode] = need(p, 2);
      print(await admin.call('POST', `/organizations/${org}/keys`, { mode }));
      console.error('The secret above is shown only once.');
      return;
    }
    case 'key:list':
      return print(await admin.call('GET', `/organizations/${need(p, 1)[0]}/keys`));
    case 'key:revoke': {
      const [org, key] = need(p, 2);
      return print(await admin.call('POST', `/organizations/${org}/keys/${key}/revoke`));
    }
    case 'location:create': {
      const [org, mode, ...name] = need(p, 3);
      return print(await admin.call('POST', `/organizations/${org}/locations`, { mode, name: name.join(' ') }));
    }
    case 'location:list': {
      const [org, mode] = need(p, 2);
      return print(await admin.call('GET', `/organizations/${org}/locations?mode=${mode}`));
    }
    case 'destination:create': {
      const [org, mode, address] = need(p, 3);
      return print(
        await admin.call('POST', `/organizations/${org}/payment-destinations`, {
          mode,
          address,
          status: options.get('status') ?? 'active',
          verified: options.has('verified'),
        }),
      );
    }
    case 'destination:update': {
      const [org, mode, id] = need(p, 3);
      const body: Record<string, unknown> = { mode };
      if (options.has('status')) body.status = options.get('status');
      if (options.has('verified')) body.verified = options.get('verified') === 'true';
      return print(await admin.call('PATCH', `/organizations/${org}/payment-destinations/${id}`, body));
    }
    case 'destination:list': {
      const [org, mode] = need(p, 2);
      return print(await admin.call('GET', `/organizations/${org}/payment-destinations?mode=${mode}`));
    }
    case 'settings:get': {
      const [org, mode] = need(p, 2);
      return print(await admin.call('GET', `/organizations/${org}/checkout-settings?mode=${mode}`));
    }
    case 'settings:set': {
      const [org, mode] = need(p, 2);
      const body: Record<string, unknown> = { mode };
      const callback = options.get('callback-url');
      if (callback !== undefined) body.defaultCallbackUrl = callback === 'none' ? null : callback;
      if (options.has('methods')) body.enabledPaymentMethods = (options.get('methods') ?? '').split(',');
      if (options.has('signing')) body.webhookSigning = options.get('signing') === 'on';
      return print(await admin.call('PATCH', `/organizations/${org}/checkout-settings`, body));
    }
    default:
      throw new Error(`unknown command "${command}"\n${USAGE}`);
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
