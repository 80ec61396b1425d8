import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './index';

// Redaction missed the signing secret of checkout settings, the admin and internal tokens of config
// objects and credentials inside URLs (mongodb://user:password@host). Every line is checked as written.

function capture(): { logger: ReturnType<typeof createLogger>; text: () => string } {
  let out = '';
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      out += chunk.toString();
      done();
    },
  });
  return { logger: createLogger('test', { level: 'trace', destination: destination }), text: () => out };
}

describe('log redaction', () => {
  it('When settings, config or URLs with credentials are logged, then no secret appears in the line', () => {
    const { logger, text } = capture();
    const secrets = [
      'whsec_c2VjcmV0LWtleS1ieXRlcw',
      'admin-Zq3vN8kL2pX7mR4tW9',
      'internal-Yh5Jk2Lp9Qw3Er7Ty1',
      'dbpass-Xw8Vn3Km7Pq2',
      'sasl-Pw4Rt8Yu2Io6',
    ];
    logger.info({ settings: { webhookSigningSecret: secrets[0], webhookSigningSecrets: [secrets[0]] } }, 'settings');
    logger.info(
      {
        config: {
          ADMIN_TOKEN: secrets[1],
          INTERNAL_TOKEN: secrets[2],
          MONGODB_URL: `mongodb://gateway:${secrets[3]}@db:27017/`,
          KAFKA_SASL_PASSWORD: secrets[4],
        },
      },
      'config',
    );
    logger.warn({ url: `mongodb://orders:${secrets[3]}@db:27017/?authSource=orders` }, 'reconnecting');
    logger.error(`could not connect to mongodb://orders:${secrets[3]}@db:27017`);
    const written = text();
    for (const secret of secrets) expect(written).not.toContain(secret);
    expect(written).toContain('mongodb://orders:[redacted]@db:27017');
    expect(written.split('\n').filter(Boolean)).toHaveLength(4);
  });

  // Errors are serialized by pino after the object-level redaction, which left them as they were: a driver's
  // "connect failed for mongodb://user:password@host" reached the line in err.message and err.stack.
  it('When an Error whose message, stack, cause or fields carry a URL with credentials is logged, then the credentials are redacted', () => {
    const { logger, text } = capture();
    const secrets = [
      'dbpass-Gq7Lm2Xc9Vb4',
      'hookpass-Tz5Nw8Ks3Rd6',
      'causepass-Jf2Hy7Pe4Ua9',
      'fieldpass-Mb6Qv1Wn8Ls3',
      'barepass-Ck4Ej9Ro2Xt7',
    ];
    logger.error(
      {
        err: new Error(`connect ECONNREFUSED mongodb://orders:${secrets[0]}@db-0.mongodb.svc:27017/?authSource=orders`),
      },
      'mongo down',
    );
    const withStackOnly = new Error('request failed');
    withStackOnly.stack = `Error: request failed\n    at post (https://hooks:${secrets[1]}@internal.example/cb)\n    at run (file:///app/x.js:1:1)`;
    logger.warn({ err: withStackOnly }, 'webhook');
    logger.error(
      { err: new Error('outer', { cause: new Error(`inner https://svc:${secrets[2]}@kafka.example:9093`) }) },
      'with cause',
    );
    logger.error(
      { err: Object.assign(new Error('with a field'), { url: `amqp://u:${secrets[3]}@mq:5672` }) },
      'with a field',
    );
    logger.error(new Error(`bare error for redis://default:${secrets[4]}@cache:6379`));
    logger.error({ error: new Error(`under another key mongodb://x:${secrets[0]}@db:27017`) }, 'other key');
    const written = text();
    for (const secret of secrets) expect(written).not.toContain(secret);
    expect(written).toContain('mongodb://orders:[redacted]@db-0.mongodb.svc:27017');
    expect(written).toContain('https://hooks:[redacted]@internal.example/cb');
    // The error is still there to read: its type, message and stack.
    const lines = written
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { msg: string; err?: { type: string; message: string; stack: string } });
    expect(lines).toHaveLength(6);
    expect(lines[0]?.err).toMatchObject({ type: 'Error', message: expect.stringContaining('connect ECONNREFUSED') });
    expect(lines[0]?.err?.stack).toContain('at ');
    expect(lines[4]?.msg).toBe('bare error for redis://default:[redacted]@cache:6379');
    expect(lines[4]?.err?.type).toBe('Error');
  });

  it('When a dashboard token, cookie or login URL is logged, then none appears in the line (D47)', () => {
    const { logger, text } = capture();
    const token = 'Qm9vbGVhbkRhc2hib2FyZFRva2VuVmFsdWUxMjM0NTY3';
    logger.info(
      {
        req: { headers: { cookie: `checkout_dashboard=${token}` } },
        res: { headers: { 'set-cookie': `checkout_dashboard=${token}` } },
      },
      'request',
    );
    logger.info(
      { link: { loginUrl: `https://api.example/dashboard/login/${token}` }, sessionToken: token, csrfToken: token },
      'dashboard',
    );
    expect(text()).not.toContain(token);
  });
});
