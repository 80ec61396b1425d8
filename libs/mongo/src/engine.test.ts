import { describe, expect, it } from 'vitest';
import { engineOfHello, settingsFor } from './engine';

// The emulator's workarounds (retryable writes off, the monitor watchdog) apply only to a server
// whose hello/isMaster answer lacks topologyVersion. The answers below are the first heartbeat replies as the
// driver reports them (serverHeartbeatSucceeded's `reply`).

/** mongo-java-server 1.47 with our launcher (4.4 / wire 9), recorded from the local engine on 2026-11-24. */
const MONGO_JAVA_SERVER = {
  ismaster: true,
  maxBsonObjectSize: 16777216,
  maxWriteBatchSize: 1000,
  maxMessageSizeBytes: 48000000,
  maxWireVersion: 9,
  minWireVersion: 0,
  localTime: '2026-11-24T21:52:28.939Z',
  ok: 1,
  isWritablePrimary: true,
};

/** FerretDB v2.5.0 on PostgreSQL 15 with DocumentDB 0.106.0, recorded on 2026-11-27: no topologyVersion either. */
const FERRETDB_2_5 = {
  helloOk: true,
  ismaster: true,
  maxBsonObjectSize: 16777216,
  maxMessageSizeBytes: 48000000,
  maxWriteBatchSize: 100000,
  localTime: '2026-11-27T01:35:18.109Z',
  logicalSessionTimeoutMinutes: 30,
  connectionId: 42,
  minWireVersion: 0,
  maxWireVersion: 21,
  readOnly: false,
  saslSupportedMechs: ['SCRAM-SHA-256'],
  ok: 1,
  isWritablePrimary: true,
};

// MongoDB 7.0 answers, in the shape of the hello command's reference (no MongoDB server binary is served by a
// registry here: docs/engines.md); the ObjectId of topologyVersion.processId is shown as the driver's object.
const processId = { $oid: '6565f3b7c0a4e2b5d1e0a001' };
const REPLICA_SET_PRIMARY = {
  topologyVersion: { processId, counter: 6 },
  hosts: ['db-0.db:27017', 'db-1.db:27017', 'db-2.db:27017'],
  setName: 'rs0',
  setVersion: 1,
  isWritablePrimary: true,
  secondary: false,
  primary: 'db-0.db:27017',
  me: 'db-0.db:27017',
  electionId: { $oid: '7fffffff0000000000000003' },
  lastWrite: {
    opTime: { ts: { t: 1732485000, i: 1 }, t: 3 },
    lastWriteDate: '2026-11-24T21:50:00Z',
    majorityOpTime: { ts: { t: 1732485000, i: 1 }, t: 3 },
    majorityWriteDate: '2026-11-24T21:50:00Z',
  },
  maxBsonObjectSize: 16777216,
  maxMessageSizeBytes: 48000000,
  maxWriteBatchSize: 100000,
  localTime: '2026-11-24T21:52:28.939Z',
  logicalSessionTimeoutMinutes: 30,
  connectionId: 412,
  minWireVersion: 0,
  maxWireVersion: 21,
  readOnly: false,
  ok: 1,
};
const REPLICA_SET_SECONDARY = {
  ...REPLICA_SET_PRIMARY,
  topologyVersion: { processId: { $oid: '6565f3b7c0a4e2b5d1e0a002' }, counter: 4 },
  isWritablePrimary: false,
  secondary: true,
  me: 'db-1.db:27017',
};
const STANDALONE = {
  topologyVersion: { processId, counter: 0 },
  isWritablePrimary: true,
  maxBsonObjectSize: 16777216,
  maxMessageSizeBytes: 48000000,
  maxWriteBatchSize: 100000,
  localTime: '2026-11-24T21:52:28.939Z',
  logicalSessionTimeoutMinutes: 30,
  connectionId: 7,
  minWireVersion: 0,
  maxWireVersion: 21,
  readOnly: false,
  ok: 1,
};
const MONGOS = { ...STANDALONE, msg: 'isdbgrid' };

describe('engineOfHello: which server gets the emulator workarounds', () => {
  it('treats the local engine (no topologyVersion) as the emulator: retryable writes off, monitor watchdog on', () => {
    expect(engineOfHello(MONGO_JAVA_SERVER)).toBe('emulator');
    expect(settingsFor(engineOfHello(MONGO_JAVA_SERVER))).toEqual({ retryWrites: false, monitorWatchdog: true });
  });

  it('treats FerretDB 2.5 (wire version 21, but no topologyVersion: the driver polls it) as the emulator', () => {
    expect(engineOfHello(FERRETDB_2_5)).toBe('emulator');
  });

  it.each([
    ['a replica set primary', REPLICA_SET_PRIMARY],
    ['a replica set secondary', REPLICA_SET_SECONDARY],
    ['a standalone mongod', STANDALONE],
    ['a mongos', MONGOS],
  ])('treats %s as MongoDB: retryable writes on, no watchdog', (_name, hello) => {
    expect(engineOfHello(hello)).toBe('mongodb');
    expect(settingsFor(engineOfHello(hello))).toEqual({ retryWrites: true, monitorWatchdog: false });
  });

  it('treats a null topologyVersion as absent (the driver polls such a server too)', () => {
    expect(engineOfHello({ ...STANDALONE, topologyVersion: null })).toBe('emulator');
  });
});
