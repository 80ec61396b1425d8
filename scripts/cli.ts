// Developer CLI (D45):
//   npm run cli -- listen --forward-to http://localhost:3000/webhooks   relay new events to a local URL
//   npm run cli -- trigger checkout.session.completed                   create and pay a test session
//   npm run cli -- dashboard                                             print a fresh dashboard login link (D47)
import { existsSync, readFileSync } from 'node:fs';
import { Checkout } from '@checkout/sdk';
import { SESSION_EVENT_TYPES, type EventType } from '@checkout/contracts';
import { Relay } from './lib/relay';

// trigger makes a checkout session's events only (D30): order and refund events come from orders' own changes.
const TRIGGER_TYPES: readonly string[] = Object.values(SESSION_EVENT_TYPES);

const USAGE = `usage: npm run cli -- <command> [options]
  listen --forward-to <url> [--secret whsec_…] [--interval-ms 1000]
      polls the events API and forwards every new event to <url> with the delivery's headers and body
      (signed with --secret / CHECKOUT_WEBHOOK_SECRET when given); prints time, type, id and the local status
  trigger <${TRIGGER_TYPES.join('|')}> [--callback-url <url>]
      creates a test checkout session and pays it (completed) or expires it (expired)
  dashboard
      prints a fresh merchant dashboard login link (single use, valid 5 minutes; D47). Also takes a live key
options for all: --key sk_test_… (or CHECKOUT_API_KEY, or the running \`npm start\` stack's .stack.json)
                  --base-url <gateway> (or CHECKOUT_BASE_URL, or .stack.json, else http://127.0.0.1:8080)`;

interface StackFile {
  gatewayUrl?: string;
  testKey?: string;
}

function parse(args: string[]): { positional: string[]; options: Map<string, string> } {
  const options = new Map<string, string>();
  const positional: string[] = [];
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] as string;
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!match?.[1]) {
      positional.push(arg);
    } else if (match[2] !== undefined) {
      options.set(match[1], match[2]);
    } else {
      options.set(match[1], args[i + 1] ?? '');
      i += 1;
    }
  }
  return { positional, options };
}

function stackFile(): StackFile {
  return existsSync('.stack.json') ? (JSON.parse(readFileSync('.stack.json', 'utf8')) as StackFile) : {};
}

function client(options: Map<string, string>, allowLive = false): Checkout {
  const stack = stackFile();
  const key = options.get('key') ?? process.env.CHECKOUT_API_KEY ?? stack.testKey;
  if (!key) throw new Error('No API key: pass --key sk_test_…, set CHECKOUT_API_KEY, or run `npm start`.');
  // The relay and trigger are for development: they never touch live data.
  if (!key.startsWith('sk_test_') && !(allowLive && key.startsWith('sk_live_')))
    throw new Error('The CLI works with test keys (sk_test_…) only.');
  const baseUrl =
    options.get('base-url') ?? process.env.CHECKOUT_BASE_URL ?? stack.gatewayUrl ?? 'http://127.0.0.1:8080';
  return new Checkout(key, { baseUrl });
}

async function listen(options: Map<string, string>): Promise<void> {
  const forwardTo = options.get('forward-to');
  if (!forwardTo) throw new Error(`listen needs --forward-to <url>\n${USAGE}`);
  const intervalMs = Number(options.get('interval-ms') ?? 1000);
  const relay = new Relay({
    client: client(options),
    forwardTo,
    secret: options.get('secret') ?? process.env.CHECKOUT_WEBHOOK_SECRET,
    print: (line) => console.log(line),
  });
  await relay.prime();
  console.error(`Ready: forwarding new events to ${forwardTo} (Ctrl-C to stop)`);
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const stop = () => {
    stopped = true;
    clearTimeout(timer);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  const tick = async () => {
    try {
      await relay.poll();
    } catch (err) {
      console.error(`poll failed: ${err instanceof Error ? err.message : String(err)}; retrying`);
    }
    if (!stopped) timer = setTimeout(() => void tick(), intervalMs);
  };
  await tick();
}

async function trigger(type: string | undefined, options: Map<string, string>): Promise<void> {
  if (!type || !TRIGGER_TYPES.includes(type))
    throw new Error(`trigger needs an event type: ${TRIGGER_TYPES.join(', ')}\n${USAGE}`);
  const checkout = client(options);
  const callbackUrl = options.get('callback-url');
  const session = await checkout.checkoutSessions.create({
    items: [{ name: 'Triggered test item', quantity: 1, unitPrice: 1000 }],
    metadata: { source: 'cli trigger' },
    ...(callbackUrl && { callbackUrl }),
  });
  const after =
    (type as EventType) === SESSION_EVENT_TYPES.completed
      ? await checkout.testHelpers.checkoutSessions.pay(session.id)
      : await checkout.testHelpers.checkoutSessions.expire(session.id);
  console.log(`${type}: session ${after.id} is ${after.status} (order ${after.order.id})`);
}

/** D47: one line, the link, on stdout (so `open "$(npm run -s cli -- dashboard)"` works); the expiry on stderr. */
async function dashboard(options: Map<string, string>): Promise<void> {
  // Looking is not changing test data, so a live key may open its dashboard too.
  const { url, expiresAt } = await client(options, true).dashboard.loginLinks.create();
  console.log(url);
  console.error(`single use, valid until ${expiresAt}`);
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  const { positional, options } = parse(rest);
  if (command === 'listen') return listen(options);
  if (command === 'trigger') return trigger(positional[0], options);
  if (command === 'dashboard') return dashboard(options);
  console.log(USAGE);
  if (command && command !== 'help' && command !== '--help') process.exitCode = 1;
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
