import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { inject } from 'vitest';
import type {} from '@checkout/testing';

export const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

/** Names private to one test file: a database and a topic prefix. */
export function isolatedNames(label: string): { database: string; prefix: string } {
  const suffix = randomBytes(4).toString('hex');
  return { database: `${label}_${suffix}`, prefix: `${label}-${suffix}` };
}

export function engines(): { kafkaBrokers: string[]; mongoUrl: string; description: string } {
  return inject('engines');
}
