import type { Document } from 'mongodb';

/**
 * What kind of server a client talks to, as far as the client's settings care:
 * - `mongodb`: a MongoDB server (standalone, replica set member or mongos). Every MongoDB the driver accepts
 *   (4.4+, wire version 9) puts `topologyVersion` in its hello/isMaster answer: the streaming server monitor
 *   is built on it. The driver's defaults apply, retryable writes included.
 * - `emulator`: a MongoDB-compatible server that does not (the local engine mongo-java-server; FerretDB 1.x and
 *   2.5 neither). It gets the two workarounds below and nothing else does.
 */
export type MongoEngine = 'mongodb' | 'emulator';

/** The engine behind a hello/isMaster answer (the first heartbeat's reply): see MongoEngine. */
export function engineOfHello(reply: Document): MongoEngine {
  const topologyVersion: unknown = reply['topologyVersion'];
  return topologyVersion !== null && typeof topologyVersion === 'object' ? 'mongodb' : 'emulator';
}

export interface EngineSettings {
  /**
   * Retryable writes: on for MongoDB (a write interrupted by a primary step-down or a network error is retried
   * once, server-side deduplicated by its transaction number). Off for the emulator, which keeps no sessions
   * or transaction numbers to deduplicate with; there, each write path that is retried is idempotent by
   * construction (unique ids, conditional filters: docs/engineering.md).
   */
  retryWrites: boolean;
  /**
   * The server monitor watchdog (monitor-watchdog.ts): the wedge it repairs happens in the driver's polling
   * monitor, which the driver uses against a server without `topologyVersion`. A MongoDB server is monitored
   * by streaming instead, so it does not need one.
   */
  monitorWatchdog: boolean;
}

export function settingsFor(engine: MongoEngine): EngineSettings {
  return engine === 'mongodb'
    ? { retryWrites: true, monitorWatchdog: false }
    : { retryWrites: false, monitorWatchdog: true };
}
