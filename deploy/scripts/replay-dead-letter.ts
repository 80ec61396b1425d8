// Replays the dead-letter topic (webhooks.dead-letter): for every dead-lettered delivery, asks the
// webhook-dispatcher for a new delivery of the same event (its internal twin of POST /v0/events/:id/redeliver:
// same event id, new delivery id, full retry schedule again). Reads from where this tool's consumer group left
// off up to the end offsets seen at start, then stops; offsets are committed only after the redelivery was
// accepted, so a failed run can simply be run again.
//   node dist/replay-dead-letter.mjs [--dry-run] [--organization=org_…] [--since=2026-01-01T00:00:00Z] [--group=name]
// env: KAFKA_BROKERS, TOPIC_PREFIX (optional), DISPATCHER_URL (events-API pods), INTERNAL_TOKEN.
// Filtered-out messages are committed as seen too; use a fresh --group to scan the topic again from its start.
// Messages that are not dead-lettered deliveries (a poison session event parked by a consumer) are reported
// and skipped: they need a human, not a retry.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { z } from 'zod';
import { checkKafkaSecurity, env, kafkaConfigShape, kafkaConnection, loadConfig, secret } from '@checkout/config';
import { INTERNAL_API_HEADERS, TOPICS, topicName } from '@checkout/contracts';
import { createKafka, drainTopic } from '@checkout/kafka';
import { createLogger } from '@checkout/logger';

const ReplayConfigSchema = z
  .object({
    ...kafkaConfigShape,
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('warn'),
    DISPATCHER_URL: env.url().describe('Internal base URL of the webhook-dispatcher events API'),
    INTERNAL_TOKEN: secret(32).describe(
      "The replay job's own internal credential; the dispatcher lists it in INTERNAL_CALLERS as dead-letter-replay",
    ),
    REPLAY_TIMEOUT_MS: env.positiveInt(120_000),
  })
  .superRefine(checkKafkaSecurity);

/**
 * The fields of a dispatcher DeadLetterMessage this tool needs
 * (services/webhook-dispatcher/src/messaging/webhook-messages.ts).
 */
export const DeadLetterEntry = z.object({
  deliveryId: z.string(),
  eventId: z.string().regex(/^evt_(test|live)_[0-9A-Za-z]+$/),
  organizationId: z.string().min(1),
  mode: z.enum(['test', 'live']),
  url: z.string(),
  /** D50: a delivery to a webhook endpoint is replayed to that endpoint; absent for a session's callback URL. */
  endpointId: z
    .string()
    .regex(/^we_(test|live)_[0-9A-Za-z]+$/)
    .optional(),
  failedAt: z.string(),
});
export type DeadLetterEntry = z.infer<typeof DeadLetterEntry>;

export interface ReplayOptions {
  dryRun: boolean;
  organization?: string;
  since?: Date;
  group?: string;
}

/** What one replay delivers to: an event's callback URL, or one of its webhook endpoints (each once per run). */
function target(entry: DeadLetterEntry): string {
  return `${entry.eventId} ${entry.endpointId ?? 'callback'}`;
}

export function parseArgs(argv: readonly string[]): ReplayOptions {
  const options: ReplayOptions = { dryRun: false };
  for (const arg of argv) {
    const [flag, value] = arg.split(/=(.*)/s, 2) as [string, string | undefined];
    if (flag === '--dry-run') options.dryRun = true;
    else if (flag === '--organization' && value) options.organization = value;
    else if (flag === '--group' && value) options.group = value;
    else if (flag === '--since' && value && !Number.isNaN(Date.parse(value))) options.since = new Date(value);
    else throw new Error(`replay-dead-letter: unknown or malformed argument ${arg}`);
  }
  return options;
}

interface ReplayCounts {
  replayed: number;
  skipped: number;
  invalid: number;
}

export async function replayDeadLetter(
  environment: Record<string, string | undefined>,
  options: ReplayOptions,
): Promise<ReplayCounts> {
  const config = loadConfig('replay-dead-letter', ReplayConfigSchema, environment);
  const logger = createLogger('replay-dead-letter', { level: config.LOG_LEVEL });
  const kafka = createKafka({
    ...kafkaConnection(config),
    clientId: config.KAFKA_CLIENT_ID ?? 'replay-dead-letter',
    logger,
  });
  const topic = topicName(config.TOPIC_PREFIX, TOPICS.webhookDeadLetter);
  const groupId = options.group ?? topicName(config.TOPIC_PREFIX, 'webhook-dispatcher.dead-letter-replay');

  const run: ReplayRun = { config, options, counts: { replayed: 0, skipped: 0, invalid: 0 }, seen: new Set() };
  await drainTopic({
    kafka,
    topic,
    groupId,
    commit: !options.dryRun,
    timeoutMs: config.REPLAY_TIMEOUT_MS,
    handle: (message) => replayMessage(message.value, run),
  });
  return run.counts;
}

/** What one run carries from message to message: the counts so far, and the targets already replayed. */
interface ReplayRun {
  config: z.infer<typeof ReplayConfigSchema>;
  options: ReplayOptions;
  counts: ReplayCounts;
  seen: Set<string>;
}

async function replayMessage(raw: string, run: ReplayRun): Promise<void> {
  const { options, counts, seen } = run;
  let entry: DeadLetterEntry;
  try {
    entry = DeadLetterEntry.parse(JSON.parse(raw));
  } catch {
    counts.invalid += 1;
    console.error(`skipped: not a dead-lettered delivery: ${raw.slice(0, 200)}`);
    return;
  }
  if (
    (options.organization && entry.organizationId !== options.organization) ||
    (options.since && Date.parse(entry.failedAt) < options.since.getTime()) ||
    seen.has(target(entry))
  ) {
    counts.skipped += 1;
    return;
  }
  seen.add(target(entry));
  if (options.dryRun) {
    console.log(
      `would redeliver ${entry.eventId} (${entry.organizationId}/${entry.mode}, dead delivery ${entry.deliveryId} to ${entry.url})`,
    );
    counts.replayed += 1;
    return;
  }
  const { statusCode, text } = await requestRedelivery(run.config, entry);
  countRedelivery(entry, statusCode, text, counts);
}

async function requestRedelivery(
  config: ReplayRun['config'],
  entry: DeadLetterEntry,
): Promise<{ statusCode: number; text: string }> {
  const response = await request(
    `${config.DISPATCHER_URL.replace(/\/+$/, '')}/internal/events/${encodeURIComponent(entry.eventId)}/redeliver`,
    {
      method: 'POST',
      headers: {
        [INTERNAL_API_HEADERS.token]: config.INTERNAL_TOKEN,
        [INTERNAL_API_HEADERS.organization]: entry.organizationId,
        [INTERNAL_API_HEADERS.mode]: entry.mode,
        [INTERNAL_API_HEADERS.requestId]: `replay-${entry.deliveryId}`,
        ...(entry.endpointId !== undefined && { 'content-type': 'application/json' }),
      },
      ...(entry.endpointId !== undefined && {
        body: JSON.stringify({ endpointId: entry.endpointId }),
      }),
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    },
  );
  return { statusCode: response.statusCode, text: await response.body.text() };
}

/**
 * Counts the dispatcher's answer. An event or endpoint it cannot redeliver to is skipped; any other answer stops
 * the run before this message's offset is committed, so the next run asks again.
 */
function countRedelivery(entry: DeadLetterEntry, statusCode: number, text: string, counts: ReplayCounts): void {
  if (statusCode === 202) {
    const delivery = (JSON.parse(text) as { delivery?: { id?: string } }).delivery;
    console.log(`redelivered ${entry.eventId}: new delivery ${delivery?.id ?? '?'} (was ${entry.deliveryId})`);
    counts.replayed += 1;
  } else if (statusCode === 404) {
    console.error(`skipped ${entry.eventId}: the dispatcher does not know it (${text.slice(0, 200)})`);
    counts.skipped += 1;
  } else if (statusCode === 400 && text.includes('WEBHOOK_ENDPOINT_DISABLED')) {
    console.error(`skipped ${entry.eventId}: its webhook endpoint ${entry.endpointId ?? ''} is disabled`);
    counts.skipped += 1;
  } else {
    throw new Error(`replay-dead-letter: redeliver ${entry.eventId} answered ${statusCode}: ${text.slice(0, 300)}`);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  Promise.resolve()
    .then(() => replayDeadLetter(process.env, parseArgs(process.argv.slice(2))))
    .then(
      (c) => {
        console.log(`replayed=${c.replayed} skipped=${c.skipped} invalid=${c.invalid}`);
        process.exit(0);
      },
      (err: unknown) => {
        console.error(err instanceof Error ? err.message : err);
        process.exit(1);
      },
    );
}
