import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { stackEnvironment } from '@checkout/testing';

/**
 * The settings of a gateway on its own: the test's engines and a fresh database and topics, both listeners on
 * free ports, and the services behind it unreachable (port 1), for tests that need none of them.
 */
export function gatewayOnlyEnvironment(namePrefix: string): ReturnType<typeof stackEnvironment> {
  const { mongoUrl, kafkaBrokers } = inject('engines');
  return stackEnvironment({
    ports: { gateway: 0, gatewayAdmin: 0, orders: 1, sessions: 1, dispatcher: 1 },
    mongoUrl,
    kafkaBrokers,
    namePrefix: `${namePrefix}_${randomBytes(4).toString('hex')}`,
    logLevel: 'silent',
  });
}
