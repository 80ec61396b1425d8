import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './index';

// Issue 22 (low): redaction missed the signing secret of checkout settings, the admin and internal tokens of config
// objects and credentials inside URLs (mongodb://user:password@host). Every line is checked as written.

function capture(): { logger: ReturnType<typeof createLogger>; text: () => string } {
  let out = '';
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      out += chunk.toString();
      done();
    },
  });
  return { logger: createLogger('test', { level: 'trace', destination: destination as never }), text: () => out };
}

describe('log redaction (issue 22)', () => {
  it('When settings, config or URLs with credentials are logged, then no secret appears in the line', () => {
    const { logger, text } = capture();
    const secrets = ['whsec_c2VjcmV0LWtleS1ieXRlcw', 'admin-Zq3vN8kL2pX7mR4tW9', 'internal-Yh5Jk2Lp9Qw3Er7Ty1', 'dbpass-Xw8Vn3Km7Pq2', 'sasl-Pw4Rt8Yu2Io6'];
    logger.info({ settings: { webhookSigningSecret: secrets[0], webhookSigningSecrets: [secrets[0]] } }, 'settings');
    logger.info({ config: { ADMIN_TOKEN: secrets[1], INTERNAL_TOKEN: secrets[2], MONGODB_URL: `mongodb://gateway:${secrets[3]}@db:27017/`, KAFKA_SASL_PASSWORD: secrets[4] } }, 'config');
    logger.warn({ url: `mongodb://orders:${secrets[3]}@db:27017/?authSource=orders` }, 'reconnecting');
    logger.error(`could not connect to mongodb://orders:${secrets[3]}@db:27017`);
    const written = text();
    for (const secret of secrets) expect(written).not.toContain(secret);
    expect(written).toContain('mongodb://orders:[redacted]@db:27017');
    expect(written.split('\n').filter(Boolean)).toHaveLength(4);
  });

  it('When a dashboard token, cookie or login URL is logged, then none appears in the line (D47)', () => {
    const { logger, text } = capture();
    const token = 'Qm9vbGVhbkRhc2hib2FyZFRva2VuVmFsdWUxMjM0NTY3';
    logger.info({ req: { headers: { cookie: `checkout_dashboard=${token}` } }, res: { headers: { 'set-cookie': `checkout_dashboard=${token}` } } }, 'request');
    logger.info({ link: { loginUrl: `https://api.example/dashboard/login/${token}` }, sessionToken: token, csrfToken: token }, 'dashboard');
    expect(text()).not.toContain(token);
  });
});
