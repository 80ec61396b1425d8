import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inSpan } from '@checkout/telemetry';
import { collectSpans } from '@checkout/telemetry/testing';
import { createLogger, withRequestId } from './index';

function capture(): { stream: Writable; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return {
    stream,
    lines: () =>
      chunks
        .join('')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
  };
}

describe('log lines carry the trace they were written in', () => {
  let collector: ReturnType<typeof collectSpans>;
  beforeAll(() => {
    collector = collectSpans('logger-test');
  });
  afterAll(() => collector.shutdown());

  it('trace_id and span_id inside a span, with the request id; neither outside one', async () => {
    const out = capture();
    const logger = createLogger('svc', { destination: out.stream });
    let ids: { traceId: string; spanId: string } | undefined;
    await withRequestId('req_abcdefgh12', () =>
      inSpan('work', { kind: 'internal' }, async (span) => {
        const traceparent = span.carrier()!.traceparent.split('-');
        ids = { traceId: traceparent[1]!, spanId: traceparent[2]! };
        logger.info('inside');
      }),
    );
    logger.info('outside');
    const [inside, outside] = out.lines();
    expect(inside).toMatchObject({ requestId: 'req_abcdefgh12', trace_id: ids!.traceId, span_id: ids!.spanId });
    expect(outside).not.toHaveProperty('trace_id');
    expect(outside).not.toHaveProperty('span_id');
  });
});
