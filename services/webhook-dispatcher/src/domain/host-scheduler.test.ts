import { describe, expect, it } from 'vitest';
import { gate, settledYet } from '@checkout/testing';
import { HostScheduler } from './host-scheduler';

const limits = { maxInFlight: 4, maxPerHost: 2, maxQueuedPerHost: 3, maxQueued: 6 };

describe('HostScheduler', () => {
  it('When one host hangs, then another host still gets its attempts run', async () => {
    const scheduler = new HostScheduler(limits);
    const hang = gate();
    const started: string[] = [];
    for (let i = 0; i < 3; i += 1) scheduler.submit(`slow-${i}`, 'slow:443', async () => { started.push(`slow-${i}`); await hang.promise; });
    const fastDone = gate();
    scheduler.submit('fast-0', 'fast:443', async () => { started.push('fast-0'); fastDone.open(); });
    await fastDone.promise;
    expect(started).toEqual(['slow-0', 'slow-1', 'fast-0']);
    expect(scheduler.inFlight).toBe(2);
    hang.open();
    await scheduler.idle();
    expect(started).toContain('slow-2');
  });

  it('When a host already runs maxPerHost attempts, then further ones wait in its queue', () => {
    const scheduler = new HostScheduler(limits);
    const hang = gate();
    for (let i = 0; i < 3; i += 1) scheduler.submit(`a-${i}`, 'a', () => hang.promise);
    expect(scheduler.inFlight).toBe(2);
    expect(scheduler.queued).toBe(1);
    hang.open();
  });

  it('When the global cap is reached, then hosts take turns for free slots', async () => {
    const scheduler = new HostScheduler({ ...limits, maxInFlight: 1, maxQueuedPerHost: 10, maxQueued: 100 });
    const order: string[] = [];
    const first = gate();
    scheduler.submit('a-0', 'a', async () => { order.push('a-0'); await first.promise; });
    scheduler.submit('a-1', 'a', async () => { order.push('a-1'); });
    scheduler.submit('a-2', 'a', async () => { order.push('a-2'); });
    scheduler.submit('b-0', 'b', async () => { order.push('b-0'); });
    first.open();
    await scheduler.idle();
    expect(order).toEqual(['a-0', 'a-1', 'b-0', 'a-2']);
  });

  it('When the same key is submitted twice, then it runs once', async () => {
    const scheduler = new HostScheduler(limits);
    let runs = 0;
    const hang = gate();
    expect(scheduler.submit('k', 'h', async () => { runs += 1; await hang.promise; })).toBe('queued');
    expect(scheduler.submit('k', 'h', async () => { runs += 1; })).toBe('duplicate');
    hang.open();
    await scheduler.idle();
    expect(runs).toBe(1);
  });

  it("When a host's queue is full, then further submissions spill and other hosts are unaffected", () => {
    const scheduler = new HostScheduler(limits);
    const hang = gate();
    const results = Array.from({ length: 6 }, (_, i) => scheduler.submit(`s-${i}`, 's', () => hang.promise));
    expect(results).toEqual(['queued', 'queued', 'queued', 'queued', 'queued', 'spilled']);
    expect(scheduler.hasRoomFor('s')).toBe(false);
    expect(scheduler.hasRoomFor('t')).toBe(true);
    expect(scheduler.submit('t-0', 't', () => hang.promise)).toBe('queued');
    hang.open();
  });

  it('When the total queue is full, then waitForRoom resolves only after work drains', async () => {
    const scheduler = new HostScheduler({ maxInFlight: 1, maxPerHost: 1, maxQueuedPerHost: 10, maxQueued: 2 });
    const hang = gate();
    for (let i = 0; i < 3; i += 1) scheduler.submit(`k-${i}`, 'h', () => hang.promise);
    let roomy = false;
    const waiting = scheduler.waitForRoom().then(() => (roomy = true));
    await Promise.resolve();
    expect(roomy).toBe(false);
    hang.open();
    await waiting;
    expect(roomy).toBe(true);
  });

  it('When a job throws, then the error is reported and the slot is freed', async () => {
    const errors: string[] = [];
    const scheduler = new HostScheduler(limits, (_err, key) => errors.push(key));
    scheduler.submit('boom', 'h', async () => { throw new Error('boom'); });
    await scheduler.idle();
    expect(errors).toEqual(['boom']);
    expect(scheduler.inFlight).toBe(0);
  });

  it("When a job releases its slot before it settles, then the host's next attempt starts meanwhile, and idle() waits for the first to settle", async () => {
    const scheduler = new HostScheduler({ ...limits, maxPerHost: 1 });
    const recorded = gate();
    const secondStarted = gate();
    let firstSettled = false;
    scheduler.submit('a-0', 'a', async (release) => {
      release(); // the request is over; recording it waits for the database
      await recorded.promise;
      firstSettled = true;
    });
    scheduler.submit('a-1', 'a', async () => secondStarted.open());
    await secondStarted.promise;
    const becameIdle = scheduler.idle();
    expect(await settledYet(becameIdle)).toBe(false);
    recorded.open();
    await becameIdle;
    expect(firstSettled).toBe(true);
  });

  it('When released jobs have not settled, then they count against the total bound: consumers wait for room, and a replay of the same key is not run', async () => {
    const scheduler = new HostScheduler({ ...limits, maxQueued: 2 });
    const recorded = gate();
    for (const key of ['a-0', 'b-0']) scheduler.submit(key, key, async (release) => { release(); await recorded.promise; });
    expect(scheduler.inFlight).toBe(0);
    expect(scheduler.submit('a-0', 'a-0', async () => {})).toBe('duplicate');
    const roomMade = scheduler.waitForRoom();
    expect(await settledYet(roomMade)).toBe(false);
    recorded.open();
    await roomMade;
    await scheduler.idle();
  });

  it('When places are reserved for jobs not submitted yet, then they count against the total bound until given back, and idle() waits for them', async () => {
    const scheduler = new HostScheduler({ ...limits, maxQueued: 2 });
    const first = await scheduler.reserve();
    const second = await scheduler.reserve();
    const third = scheduler.reserve();
    expect(await settledYet(third)).toBe(false);
    const becameIdle = scheduler.idle();
    first();
    first(); // idempotent: one place back, not two
    const giveBackThird = await third;
    expect(await settledYet(scheduler.reserve().then((giveBack) => giveBack()))).toBe(false);
    second();
    expect(await settledYet(becameIdle)).toBe(false);
    giveBackThird();
    await becameIdle;
  });
});
