import type { MongoClient, ServerHeartbeatStartedEvent } from 'mongodb';

/**
 * Why this exists (soak, a database restart): the driver's server monitor can wedge for good, and then the
 * client never selects a server again — every operation fails after serverSelectionTimeoutMS with the error
 * that marked the server Unknown ("connection 4 to … closed"), until the process restarts.
 *
 * The sequence, in mongodb 7.8/7.9 (lib/sdam/monitor.js, lib/cmap/connection.js), when the server closes
 * its connections (a restart): a pooled connection fails, the server is marked Unknown, the waiting
 * operations request a check, and the monitor polls on its idle connection, whose socket Node has already
 * destroyed but whose 'close' event has not been delivered yet (so `connection.closed` is still false).
 * `socket.write()` on a destroyed socket returns false and never emits 'drain' or 'error', and
 * Connection.writeCommand awaits 'drain' without a timeout; the socket timeout cannot fire on a destroyed
 * socket either. The check never settles, the MonitorInterval stays "in progress" and ignores every later
 * wake-up and its own schedule. Polling is what the driver does against any server without
 * topologyVersion (the local engine) and with serverMonitoringMode 'poll', so no client option avoids it.
 *
 * Every heartbeat the driver starts ends, by its own timeouts, within a bound (below); one that has not ended
 * long after that bound is that wedge. The only public way to get a new monitor is a new topology: close
 * the client and connect it again. Db and Collection handles stay valid (they reach the topology through
 * the client), so nothing above this module has to know.
 */
export interface MonitorWatchdogOptions {
  connectTimeoutMS: number;
  heartbeatFrequencyMS: number;
  /** Slack on top of the driver's own bound, for an event loop late on a loaded machine. */
  graceMs?: number;
  checkEveryMs?: number;
  onStalled?: (stall: { address: string; stalledMs: number }) => void;
  onRecovered?: (recovery: { attempts: number }) => void;
}

export interface MonitorWatchdog {
  /** Stops watching; waits for a reconnect in progress, so that the caller's close() comes after it. */
  stop(): Promise<void>;
}

/**
 * The longest a heartbeat can take by the driver's timeouts: a polled check opens a connection (connect
 * timeout) and handshakes on it (the handshake's socket timeout is connectTimeoutMS too); a streamed
 * (awaited) check also waits up to maxAwaitTimeMS, which is heartbeatFrequencyMS.
 */
export function heartbeatBoundMs(
  options: Pick<MonitorWatchdogOptions, 'connectTimeoutMS' | 'heartbeatFrequencyMS'>,
  awaited: boolean,
): number {
  return 2 * options.connectTimeoutMS + (awaited ? options.heartbeatFrequencyMS : 0);
}

export function watchServerMonitors(client: MongoClient, options: MonitorWatchdogOptions): MonitorWatchdog {
  const graceMs = options.graceMs ?? 5_000;
  const started = new Map<string, { at: number; awaited: boolean }>();
  let stopped = false;
  let recovering: Promise<void> | undefined;

  const onStarted = (event: ServerHeartbeatStartedEvent) =>
    started.set(event.connectionId, { at: Date.now(), awaited: event.awaited });
  const onEnded = (event: { connectionId: string }) => started.delete(event.connectionId);
  // A server leaving the topology (a replica set member removed) closes its monitor without ending its heartbeat.
  const onServerClosed = (event: { address: string }) => started.delete(event.address);
  client.on('serverHeartbeatStarted', onStarted);
  client.on('serverHeartbeatSucceeded', onEnded);
  client.on('serverHeartbeatFailed', onEnded);
  client.on('serverClosed', onServerClosed);

  async function reconnect(): Promise<void> {
    started.clear();
    await client.close().catch(() => {});
    for (let attempts = 1; !stopped; attempts++) {
      try {
        await client.connect();
        options.onRecovered?.({ attempts });
        return;
      } catch {
        // The server may be down again; operations answer "unavailable" meanwhile, as in any outage.
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    }
  }

  const timer = setInterval(() => {
    if (stopped || recovering) return;
    const now = Date.now();
    for (const [address, { at, awaited }] of started) {
      const stalledMs = now - at;
      if (stalledMs <= heartbeatBoundMs(options, awaited) + graceMs) continue;
      options.onStalled?.({ address, stalledMs });
      recovering = reconnect().finally(() => {
        recovering = undefined;
      });
      return;
    }
  }, options.checkEveryMs ?? 1_000);
  timer.unref();

  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await recovering;
      client.off('serverHeartbeatStarted', onStarted);
      client.off('serverHeartbeatSucceeded', onEnded);
      client.off('serverHeartbeatFailed', onEnded);
      client.off('serverClosed', onServerClosed);
    },
  };
}
