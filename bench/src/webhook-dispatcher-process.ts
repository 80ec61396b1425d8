// The dispatcher under benchmark, in a process of its own (as deployed), so that its RSS is its own and it does
// not share an event loop with the receivers. Configured by environment; reports to the bench over IPC:
// {kind: 'ready'} once started, and {kind: 'stats', rss, heap, commands} when asked with 'stats'. 'stop' stops it.
import { CommandCounter } from '@checkout/mongo';
import { createLogger } from '@checkout/logger';
import { buildApp, parseConfig } from '@checkout/webhook-dispatcher';

const counter = new CommandCounter();
const config = parseConfig(process.env);
const app = buildApp(config, createLogger('webhook-dispatcher', { level: config.LOG_LEVEL }), { commandCounter: counter });
await app.start();
let peakRss = process.memoryUsage().rss;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 50);
const send = (message: object) => process.send?.(message);
process.on('message', (message) => {
  if (message === 'stats') {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
    send({ kind: 'stats', rss: peakRss, heap: process.memoryUsage().heapUsed, commands: counter.total() });
  } else if (message === 'stop') {
    clearInterval(sampler);
    void app.stop().finally(() => process.exit(0));
  }
});
send({ kind: 'ready' });
