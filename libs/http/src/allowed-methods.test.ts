import Router from '@koa/router';
import { describe, expect, it } from 'vitest';
import { allowedMethods } from './app';

// D7: a known path with another method is 405 with `Allow`; OPTIONS answers `Allow` alone. Issue 22: the full
// fuzz run found `OPTIONS /v0/events/recover` listing GET, which belongs to `/v0/events/:eventId`.

describe('allowedMethods', () => {
  const router = new Router();
  router.get('/v0/events', () => {});
  router.get('/v0/events/:eventId', () => {});
  router.post('/v0/events/:eventId/redeliver', () => {});
  router.post('/v0/events/recover', () => {});

  it('When a literal route and a parameter route both match, then only the literal one\'s methods are allowed', () => {
    expect(allowedMethods([router], '/v0/events/recover')).toEqual(['POST', 'OPTIONS']);
  });

  it('When only the parameter route matches, then its methods are allowed', () => {
    expect(allowedMethods([router], '/v0/events/evt_test_1')).toEqual(['GET', 'HEAD', 'OPTIONS']);
    expect(allowedMethods([router], '/v0/events/evt_test_1/redeliver')).toEqual(['POST', 'OPTIONS']);
  });

  it('When nothing matches, then nothing is allowed (404, not 405)', () => {
    expect(allowedMethods([router], '/v0/nothing')).toEqual([]);
  });
});
