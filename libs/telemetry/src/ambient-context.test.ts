import { setTimeout as later } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { currentRequestId, withRequestId } from './ambient-context';
import { activeTraceIds, inSpan } from './index';
import { collectSpans } from './testing';

// The request id and the trace context share one storage (ambient-context.ts); neither may drop the other.
describe('the ambient context: request id and trace in one storage', () => {
  let collector: ReturnType<typeof collectSpans>;
  beforeAll(() => {
    collector = collectSpans('ambient');
  });
  afterAll(() => collector.shutdown());

  it('a span started inside a request keeps its request id, across awaits and timers', async () => {
    await withRequestId('req_outer00001', () =>
      inSpan('work', { kind: 'internal' }, async () => {
        await later(1);
        expect(currentRequestId()).toBe('req_outer00001');
        expect(activeTraceIds()?.trace_id).toMatch(/^[0-9a-f]{32}$/);
      }),
    );
    expect(currentRequestId()).toBeUndefined();
  });

  it('a request id set inside a span keeps the span active', async () => {
    await inSpan('server', { kind: 'server', parent: 'none' }, async () => {
      const outer = activeTraceIds();
      await withRequestId('req_inner00001', async () => {
        await later(1);
        expect(activeTraceIds()).toEqual(outer);
        expect(currentRequestId()).toBe('req_inner00001');
      });
    });
    expect(activeTraceIds()).toBeUndefined();
  });
});
