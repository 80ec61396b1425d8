import { describe, expect, it } from 'vitest';
import { DomainError } from './index';

const frames = (err: Error) => (err.stack ?? '').split('\n').filter((line) => line.trimStart().startsWith('at '));

describe('DomainError', () => {
  it('When it answers 4xx, then it carries no stack; when 5xx, it keeps one for the log; the limit is restored', () => {
    const limit = Error.stackTraceLimit;
    const refused = new DomainError('RATE_LIMITED', 'Too many requests', { retryAfterSeconds: 1 });
    expect(refused.status).toBe(429);
    expect(refused.message).toBe('Too many requests');
    expect(frames(refused)).toEqual([]);
    expect(Error.stackTraceLimit).toBe(limit);
    expect(frames(new DomainError('SERVICE_UNAVAILABLE', 'Down')).length).toBeGreaterThan(0);
    expect(frames(new Error('an ordinary error')).length).toBeGreaterThan(0);
  });
});
