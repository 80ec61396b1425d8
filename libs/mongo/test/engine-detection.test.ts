import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, inject } from 'vitest';
import { describeMongo } from '@checkout/engines';
import type {} from '@checkout/testing';
import { connectMongo, type MongoConnection } from '../src/index';

// connectMongo detects the engine from its first hello answer. On the local engine
// (mongo-java-server, an emulator) the client is made without retryable writes and with the monitor watchdog;
// a real MongoDB (Docker or MONGODB_URL) keeps the driver's retryable writes.

let mongo: MongoConnection;
/** What the engine is by another witness: its buildInfo, as testkit/engines names engines in the test log. */
let described: string;

beforeAll(async () => {
  described = await describeMongo(inject('engines').mongoUrl);
  mongo = await connectMongo(inject('engines').mongoUrl, `engine_${randomBytes(4).toString('hex')}`);
});

afterAll(async () => {
  await mongo?.close();
});

describe('connectMongo on the running engine', () => {
  it('detects the engine and sets retryable writes for it, and writes work either way', async () => {
    expect(mongo.engine, described).toBe(described.startsWith('MongoDB ') ? 'mongodb' : 'emulator');
    expect(mongo.client.options.retryWrites).toBe(mongo.engine === 'mongodb');
    // The monitor watchdog (monitor-watchdog.ts) is the one listener of heartbeat starts; only the emulator has it.
    expect(mongo.client.listenerCount('serverHeartbeatStarted')).toBe(mongo.engine === 'emulator' ? 1 : 0);
    await mongo.db.collection<{ _id: string }>('probe').insertOne({ _id: 'one' });
    expect(await mongo.db.collection<{ _id: string }>('probe').countDocuments({})).toBe(1);
  });

  it('takes an explicit engine without asking the server', async () => {
    const explicit = await connectMongo(inject('engines').mongoUrl, `engine_${randomBytes(4).toString('hex')}`, {
      engine: 'emulator',
    });
    try {
      expect(explicit.engine).toBe('emulator');
      expect(explicit.client.options.retryWrites).toBe(false);
      await explicit.ping();
    } finally {
      await explicit.close();
    }
  });
});
