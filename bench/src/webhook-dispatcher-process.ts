// The dispatcher under benchmark, in a process of its own (as deployed), so that its RSS is its own and it does
// not share an event loop with the receivers. Configured by environment; reports to the bench over IPC:
// {kind: 'ready', url} once started (its internal API, where the bench registers webhook endpoints), and
// {kind: 'stats', rss, peakHeapTotal, peakHeapUsed, peakExternal, heap, commands} when asked with 'stats' ('stats
// after gc': heap in use after a full garbage collection). 'stop' stops it.
import { CommandCounter } from '@checkout/mongo/testing';
import { createLogger } from '@checkout/logger';
import { buildApp, parseConfig } from '@checkout/webhook-dispatcher';

const counter = new CommandCounter();
const config = parseConfig(process.env);
const app = buildApp(config, createLogger('webhook-dispatcher', { level: config.LOG_LEVEL }));
const { url } = await counter.watch(() => app.start());
// The peak RSS, and what made it up then (V8's heap, reserved and in use; memory outside it: Buffers, BSON).
let peak = process.memoryUsage();
const sample = () => {
  const now = process.memoryUsage();
  if (now.rss > peak.rss) peak = now;
};
const sampler = setInterval(sample, 50);
const send = (message: object) => process.send?.(message);
process.on('message', (message) => {
  if (message === 'stats' || message === 'stats after gc') {
    sample();
    // Only at the end: what is still live once garbage is gone (run with --expose-gc).
    if (message === 'stats after gc') (globalThis as { gc?: () => void }).gc?.();
    const { rss, heapTotal, heapUsed, external } = peak;
    send({
      kind: 'stats',
      rss,
      peakHeapTotal: heapTotal,
      peakHeapUsed: heapUsed,
      peakExternal: external,
      heap: process.memoryUsage().heapUsed,
      commands: counter.total(),
    });
  } else if (message === 'stop') {
    clearInterval(sampler);
    void app.stop().finally(() => process.exit(0));
  }
});
send({ kind: 'ready', url });
