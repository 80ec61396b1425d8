import { describe, expect, it } from 'vitest';
import { gate, settledYet } from '@checkout/testing';
import { HostScheduler } from './host-scheduler';
import type { Lane, Target } from './lanes';

/** An attempt that is queued and starts at once, whatever the other lanes hold. */
function expectStartsAtOnce(scheduler: HostScheduler, target: Target): void {
  let started = false;
  expect(
    scheduler.submit('o-0', target, async () => {
      started = true;
    }),
  ).toBe('queued');
  expect(started).toBe(true);
}

const limits = { maxInFlight: 4, maxPerHost: 2, maxQueuedPerHost: 3, maxQueued: 6 };
const LIVE: Lane = { organizationId: 'org_a', mode: 'live' };
/** A host of one merchant's live lane (the tests that are not about lanes). */
const at = (host: string, lane: Lane = LIVE): Target => ({ host, lane });

describe('HostScheduler', () => {
  it('When one host hangs, then another host still gets its attempts run', async () => {
    const scheduler = new HostScheduler(limits);
    const hang = gate();
    const started: string[] = [];
    for (let i = 0; i < 3; i += 1)
      scheduler.submit(`slow-${i}`, at('slow:443'), async () => {
        started.push(`slow-${i}`);
        await hang.promise;
      });
    const fastDone = gate();
    scheduler.submit('fast-0', at('fast:443'), async () => {
      started.push('fast-0');
      fastDone.open();
    });
    await fastDone.promise;
    expect(started).toEqual(['slow-0', 'slow-1', 'fast-0']);
    expect(scheduler.inFlight).toBe(2);
    hang.open();
    await scheduler.idle();
    expect(started).toContain('slow-2');
  });

  it('When two names resolve to one address, then their attempts share its cap: each name has its slots, the address only maxPerAddress', async () => {
    const scheduler = new HostScheduler({ ...limits, maxInFlight: 8, maxPerAddress: 2 });
    const hang = gate();
    let started = 0;
    let sending = 0;
    let most = 0;
    const victim = '203.0.113.7:443';
    const attempt = (address: string) => async () => {
      started += 1;
      const leave = await scheduler.addresses.take(address);
      sending += 1;
      most = Math.max(most, sending);
      await hang.promise;
      sending -= 1;
      leave();
    };
    for (const name of ['a.example:443', 'b.example:443'])
      for (let i = 0; i < 2; i += 1) scheduler.submit(`${name}-${i}`, at(name), attempt(victim));
    // Another address is not held back by the full one.
    const elsewhere = gate();
    scheduler.submit('c-0', at('c.example:443'), async () => {
      const leave = await scheduler.addresses.take('198.51.100.1:443');
      elsewhere.open();
      leave();
    });
    await elsewhere.promise;
    // Each name's cap let both of its attempts start; the address let two of the four send.
    expect(started).toBe(4);
    expect(sending).toBe(2);
    hang.open();
    await scheduler.idle();
    expect(most).toBe(2);
  });

  it('When the scheduler stops, then attempts waiting for an address are let go at once', async () => {
    const scheduler = new HostScheduler({ ...limits, maxPerAddress: 1 });
    const held = await scheduler.addresses.take('203.0.113.7:443');
    const waiting = scheduler.addresses.take('203.0.113.7:443');
    expect(await settledYet(waiting)).toBe(false);
    scheduler.stop();
    expect(await settledYet(waiting)).toBe(true);
    held();
  });

  it('When a host already runs maxPerHost attempts, then further ones wait in its queue', () => {
    const scheduler = new HostScheduler(limits);
    const hang = gate();
    for (let i = 0; i < 3; i += 1) scheduler.submit(`a-${i}`, at('a'), () => hang.promise);
    expect(scheduler.inFlight).toBe(2);
    expect(scheduler.queued).toBe(1);
    hang.open();
  });

  it('When the global cap is reached, then hosts take turns for free slots', async () => {
    const scheduler = new HostScheduler({ ...limits, maxInFlight: 1, maxQueuedPerHost: 10, maxQueued: 100 });
    const order: string[] = [];
    const first = gate();
    scheduler.submit('a-0', at('a'), async () => {
      order.push('a-0');
      await first.promise;
    });
    scheduler.submit('a-1', at('a'), async () => {
      order.push('a-1');
    });
    scheduler.submit('a-2', at('a'), async () => {
      order.push('a-2');
    });
    scheduler.submit('b-0', at('b'), async () => {
      order.push('b-0');
    });
    first.open();
    await scheduler.idle();
    expect(order).toEqual(['a-0', 'a-1', 'b-0', 'a-2']);
  });

  it('When one webhook endpoint hangs, then it holds at most its share of its host and another endpoint on that host keeps being served (D50)', async () => {
    const scheduler = new HostScheduler({
      ...limits,
      maxPerHost: 4,
      maxPerDestination: 2,
      maxQueuedPerHost: 10,
      maxQueued: 100,
    });
    const hang = gate();
    const started: string[] = [];
    const endpoint = (destination: string): Target => ({ host: 'merchant:443', lane: LIVE, destination });
    for (let i = 0; i < 5; i += 1)
      scheduler.submit(`hang-${i}`, endpoint('we_live_hangs'), async () => {
        started.push(`hang-${i}`);
        await hang.promise;
      });
    const served = gate();
    let done = 0;
    for (let i = 0; i < 5; i += 1)
      scheduler.submit(`ok-${i}`, endpoint('we_live_ok'), async () => {
        started.push(`ok-${i}`);
        if (++done === 5) served.open();
      });
    await served.promise;
    expect(started.filter((key) => key.startsWith('hang-'))).toEqual(['hang-0', 'hang-1']);
    expect(started.filter((key) => key.startsWith('ok-'))).toHaveLength(5);
    // A callback URL on the same host is no endpoint: it is held by the host's cap only.
    const callback = gate();
    scheduler.submit('callback-0', at('merchant:443'), async () => {
      started.push('callback-0');
      callback.open();
    });
    await callback.promise;
    hang.open();
    await scheduler.idle();
    expect(started).toHaveLength(11);
  });

  it('When the same key is submitted twice, then it runs once', async () => {
    const scheduler = new HostScheduler(limits);
    let runs = 0;
    const hang = gate();
    expect(
      scheduler.submit('k', at('h'), async () => {
        runs += 1;
        await hang.promise;
      }),
    ).toBe('queued');
    expect(
      scheduler.submit('k', at('h'), async () => {
        runs += 1;
      }),
    ).toBe('duplicate');
    hang.open();
    await scheduler.idle();
    expect(runs).toBe(1);
  });

  it("When a host's queue is full, then further submissions spill and other hosts are unaffected", () => {
    const scheduler = new HostScheduler(limits);
    const hang = gate();
    const results = Array.from({ length: 6 }, (_, i) => scheduler.submit(`s-${i}`, at('s'), () => hang.promise));
    expect(results).toEqual(['queued', 'queued', 'queued', 'queued', 'queued', 'spilled']);
    expect(scheduler.hasRoomFor(at('s'))).toBe(false);
    expect(scheduler.hasRoomFor(at('t'))).toBe(true);
    expect(scheduler.submit('t-0', at('t'), () => hang.promise)).toBe('queued');
    hang.open();
  });

  it('When the total queue is full, then waitForRoom resolves only after work drains', async () => {
    const scheduler = new HostScheduler({ maxInFlight: 1, maxPerHost: 1, maxQueuedPerHost: 10, maxQueued: 2 });
    const hang = gate();
    for (let i = 0; i < 3; i += 1) scheduler.submit(`k-${i}`, at('h'), () => hang.promise);
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
    scheduler.submit('boom', at('h'), async () => {
      throw new Error('boom');
    });
    await scheduler.idle();
    expect(errors).toEqual(['boom']);
    expect(scheduler.inFlight).toBe(0);
  });

  it("When a job releases its slot before it settles, then the host's next attempt starts meanwhile, and idle() waits for the first to settle", async () => {
    const scheduler = new HostScheduler({ ...limits, maxPerHost: 1 });
    const recorded = gate();
    const secondStarted = gate();
    let firstSettled = false;
    scheduler.submit('a-0', at('a'), async (release) => {
      release(); // the request is over; recording it waits for the database
      await recorded.promise;
      firstSettled = true;
    });
    scheduler.submit('a-1', at('a'), async () => secondStarted.open());
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
    for (const key of ['a-0', 'b-0'])
      scheduler.submit(key, at(key), async (release) => {
        release();
        await recorded.promise;
      });
    expect(scheduler.inFlight).toBe(0);
    expect(scheduler.submit('a-0', at('a-0'), async () => {})).toBe('duplicate');
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

  describe('lanes: one per organization, both modes together', () => {
    const hostile: Lane = { organizationId: 'org_hostile', mode: 'test' };
    const other: Lane = { organizationId: 'org_other', mode: 'live' };
    const fair = {
      maxInFlight: 8,
      maxPerHost: 2,
      maxQueuedPerHost: 100,
      maxQueued: 100,
      maxInFlightPerLane: 4,
      maxQueuedPerLane: 10,
      liveReservedInFlight: 2,
      liveReservedQueued: 20,
    };

    it("When one merchant's endpoints on many ports all hang, then it holds at most its lane's slots and another merchant's attempt starts at once", async () => {
      const scheduler = new HostScheduler(fair);
      const hang = gate();
      for (let port = 0; port < 20; port += 1)
        scheduler.submit(`h-${port}`, at(`tarpit:${port}`, hostile), () => hang.promise);
      expect(scheduler.inFlight).toBe(4);
      expectStartsAtOnce(scheduler, at('shop:443', other));
      hang.open();
      await scheduler.idle();
    });

    it("When one merchant's test and live endpoints all hang, then both modes together hold at most its lane's slots and queue, and another merchant's attempt starts at once", async () => {
      const scheduler = new HostScheduler(fair);
      const hang = gate();
      const hostileLive: Lane = { organizationId: hostile.organizationId, mode: 'live' };
      const results: string[] = [];
      for (let port = 0; port < 10; port += 1) {
        results.push(scheduler.submit(`t-${port}`, at(`tarpit:${port}`, hostile), () => hang.promise));
        results.push(scheduler.submit(`l-${port}`, at(`tarpit:${port + 100}`, hostileLive), () => hang.promise));
      }
      // Before, each mode was a lane of its own: 4 + 4 = every one of the 8 slots, and 10 + 10 queued.
      expect(scheduler.inFlight).toBe(4);
      expect(scheduler.queued).toBe(10);
      expect(results.filter((r) => r === 'spilled')).toHaveLength(6);
      expect(scheduler.laneIsFull(hostileLive)).toBe(true);
      expectStartsAtOnce(scheduler, at('shop:443', other));
      hang.open();
      await scheduler.idle();
    });

    it("When a merchant's test mode is at test mode's cap, then its live attempts still take the lane's turns", async () => {
      const scheduler = new HostScheduler({ ...fair, maxInFlight: 4, maxInFlightPerLane: 4, liveReservedInFlight: 2 });
      const hang = gate();
      for (let i = 0; i < 4; i += 1) scheduler.submit(`t-${i}`, at(`t:${i}`, hostile), () => hang.promise);
      expect(scheduler.inFlight).toBe(2);
      let liveStarted = false;
      scheduler.submit('l-0', at('shop:443', { organizationId: hostile.organizationId, mode: 'live' }), async () => {
        liveStarted = true;
      });
      expect(liveStarted).toBe(true);
      hang.open();
      await scheduler.idle();
    });

    it("When a merchant's queue is full, then its attempts spill while another merchant's still queue, and the total never pauses the consumers for it", async () => {
      const scheduler = new HostScheduler(fair);
      const hang = gate();
      const results = Array.from({ length: 16 }, (_, i) =>
        scheduler.submit(`h-${i}`, at(`tarpit:${i}`, hostile), () => hang.promise),
      );
      // 4 run, 10 wait, the rest spill.
      expect(results.filter((r) => r === 'queued')).toHaveLength(14);
      expect(results.slice(14)).toEqual(['spilled', 'spilled']);
      expect(scheduler.hasRoomFor(at('tarpit:99', hostile))).toBe(false);
      expect(scheduler.hasRoomFor(at('shop:443', other))).toBe(true);
      expect(scheduler.fullLanes()).toEqual([hostile, { ...hostile, mode: 'live' }]);
      expect(await settledYet(scheduler.waitForRoom())).toBe(true);
      hang.open();
      await scheduler.idle();
    });

    it('When test-mode merchants together want every slot, then live keeps its reserved slots', async () => {
      const scheduler = new HostScheduler(fair);
      const hang = gate();
      for (const org of ['t1', 't2', 't3']) {
        for (let i = 0; i < 4; i += 1)
          scheduler.submit(`${org}-${i}`, at(`${org}:${i}`, { organizationId: org, mode: 'test' }), () => hang.promise);
      }
      // 8 slots, 2 reserved for live: test mode holds 6 however many test lanes want more.
      expect(scheduler.inFlight).toBe(6);
      const liveStarted: string[] = [];
      for (let i = 0; i < 2; i += 1)
        scheduler.submit(`live-${i}`, at(`live:${i}`, other), async () => {
          liveStarted.push(`live-${i}`);
          await hang.promise;
        });
      expect(liveStarted).toEqual(['live-0', 'live-1']);
      expect(scheduler.inFlight).toBe(8);
      hang.open();
      await scheduler.idle();
    });

    it('When test-mode queues reach their share, then test attempts spill and live ones still queue', () => {
      const scheduler = new HostScheduler({
        ...fair,
        maxInFlight: 1,
        liveReservedInFlight: 0,
        maxQueuedPerLane: 100,
        maxQueued: 30,
        liveReservedQueued: 20,
      });
      const hang = gate();
      const test = Array.from({ length: 12 }, (_, i) =>
        scheduler.submit(`t-${i}`, at(`t:${i % 3}`, hostile), () => hang.promise),
      );
      // One runs, ten wait (30 − 20 reserved for live), the last spills.
      expect(test.at(-1)).toBe('spilled');
      expect(scheduler.fullModes()).toEqual(['test']);
      expect(scheduler.submit('l-0', at('shop:443', other), () => hang.promise)).toBe('queued');
      hang.open();
    });

    it('When lanes wait for slots, then they take turns, one attempt each', async () => {
      const scheduler = new HostScheduler({ ...fair, maxInFlight: 1, liveReservedInFlight: 0 });
      const order: string[] = [];
      const first = gate();
      const a: Lane = { organizationId: 'a', mode: 'live' };
      const b: Lane = { organizationId: 'b', mode: 'live' };
      scheduler.submit('a-0', at('a1', a), async () => {
        order.push('a-0');
        await first.promise;
      });
      scheduler.submit('a-1', at('a2', a), async () => {
        order.push('a-1');
      });
      scheduler.submit('a-2', at('a3', a), async () => {
        order.push('a-2');
      });
      scheduler.submit('b-0', at('b1', b), async () => {
        order.push('b-0');
      });
      scheduler.submit('b-1', at('b1', b), async () => {
        order.push('b-1');
      });
      first.open();
      await scheduler.idle();
      expect(order).toEqual(['a-0', 'a-1', 'b-0', 'a-2', 'b-1']);
    });

    it('When two merchants use one host, then the host gets maxPerHost attempts at once, all lanes together', async () => {
      const scheduler = new HostScheduler(fair);
      const hang = gate();
      for (let i = 0; i < 3; i += 1) scheduler.submit(`a-${i}`, at('shared:443', hostile), () => hang.promise);
      for (let i = 0; i < 3; i += 1) scheduler.submit(`b-${i}`, at('shared:443', other), () => hang.promise);
      expect(scheduler.inFlight).toBe(2);
      hang.open();
      await scheduler.idle();
    });

    it('When a lane that spilled because it was full drains to half its queue bound, then the listener is told once', async () => {
      const scheduler = new HostScheduler({ ...fair, maxInFlightPerLane: 1, maxQueuedPerLane: 4 });
      const told: Lane[] = [];
      scheduler.onLaneRoom((lane) => told.push(lane));
      const gates = Array.from({ length: 6 }, () => gate());
      const results = gates.map((g, i) => scheduler.submit(`h-${i}`, at(`h:${i}`, hostile), () => g.promise));
      expect(results.slice(5)).toEqual(['spilled']);
      gates[0]?.open();
      await eventuallyTrue(() => scheduler.inFlight === 1 && scheduler.queued === 3);
      expect(told).toEqual([]);
      gates[1]?.open();
      await eventuallyTrue(() => scheduler.queued === 2);
      expect(told).toEqual([hostile]);
      for (const g of gates) g.open();
      await scheduler.idle();
      expect(told).toEqual([hostile]);
    });
  });
});

/**
 * Lets the scheduler's promise chains run until `condition` holds (a bounded number of turns of the microtask queue).
 */
async function eventuallyTrue(condition: () => boolean): Promise<void> {
  for (let turn = 0; turn < 100 && !condition(); turn += 1) await Promise.resolve();
  expect(condition()).toBe(true);
}
