// Where the tracing bench's traced stack exports (tracing.ts): a loopback OTLP sink standing for the collector, or a
// real Zipkin whose own CPU is read apart.
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTraceBackend } from '../../scripts/lib/observability';
import { startTraceSink } from '../../scripts/lib/trace-sink';
import { processCpuSeconds } from './cpu';

/** CPU seconds of the trace backend's process (Zipkin's JVM), from /proc (0 without it). */
function backendCpuSeconds(): number {
  let total = 0;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return 0;
  }
  for (const pid of pids) {
    let command: string;
    try {
      command = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue;
    }
    if (/zipkin-server-[\d.]+-exec\.jar/.test(command)) total += processCpuSeconds(Number(pid)) || 0;
  }
  return total;
}

/** Where the traced stack exports: its environment, what to call it, and its own CPU when it is a process apart. */
export interface TraceBackend {
  env: Record<string, string>;
  description: string;
  cpuSeconds: () => number;
  stop: () => Promise<void>;
}

export async function startBackend(exporter: 'otlp' | 'zipkin', log: (line: string) => void): Promise<TraceBackend> {
  if (exporter === 'zipkin') {
    const zipkin = await startTraceBackend({ logDir: mkdtempSync(join(tmpdir(), 'checkout-bench-traces-')), log });
    return {
      env: zipkin.env,
      description: zipkin.description,
      cpuSeconds: backendCpuSeconds,
      stop: () => zipkin.stop(),
    };
  }
  const sink = await startTraceSink();
  return {
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: sink.endpoint },
    description: 'a loopback OTLP/HTTP sink (protobuf, the exporter production uses; the sink drops every batch)',
    // The sink runs in this process: its CPU is not the services' and is not measured apart.
    cpuSeconds: () => 0,
    stop: () => sink.close(),
  };
}
