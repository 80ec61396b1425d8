import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ephemeralPortRange, freePorts, isAlive, spawnGuarded } from './process';

describe('spawnGuarded', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'engines-process-test-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('passes the exit status through and writes output to the log file', async () => {
    const logFile = join(dir, 'out.log');
    const proc = spawnGuarded({
      name: 'echo',
      command: 'bash',
      args: ['-c', 'echo hello; echo oops >&2; exit 7'],
      cwd: dir,
      logFile,
    });
    expect(await proc.waitForExit(10_000)).toEqual({ code: 7, signal: null });
    expect(await readFile(logFile, 'utf8')).toBe('hello\noops\n');
  });

  it('stop() forwards TERM through the guard', async () => {
    const logFile = join(dir, 'log');
    const proc = spawnGuarded({
      name: 'sleep',
      command: 'bash',
      args: ['-c', 'echo started; exec sleep 300'],
      cwd: dir,
      logFile,
    });
    await expect.poll(() => readFile(logFile, 'utf8'), { timeout: 5_000 }).toBe('started\n');
    await proc.stop(10_000);
    expect(proc.exitInfo()).toEqual({ code: 143, signal: null });
  });

  // Five spawns and stops, each of which can wait for the guard's next half-second poll: on a busy machine (the unit
  // tier runs beside promtool's rule tests) the five together passed the unit tier's 5 s budget with nothing wrong.
  // A lost TERM is caught by how the guard ended (the KILL after the grace), not by the clock.
  it(
    'stop() right after spawn leaves nothing running, whatever moment the TERM lands',
    { timeout: 60_000 },
    async () => {
      for (let i = 0; i < 5; i++) {
        const pidFile = join(dir, `pid-${i}`);
        const proc = spawnGuarded({
          name: 'sleep',
          command: 'bash',
          args: ['-c', `echo $$ > ${pidFile}; exec sleep 300`],
          cwd: dir,
          logFile: join(dir, 'log'),
        });
        await proc.stop(10_000);
        expect(proc.exitInfo()?.signal, 'stopped by the TERM, not by the KILL after the grace').not.toBe('SIGKILL');
        const pid = Number(await readFile(pidFile, 'utf8').catch(() => '0'));
        if (pid > 0) await expect.poll(() => isAlive(pid), { timeout: 5_000 }).toBe(false);
      }
    },
  );

  it('stop() kills the whole group when the command ignores TERM', async () => {
    const proc = spawnGuarded({
      name: 'stubborn',
      command: 'bash',
      args: ['-c', 'trap "" TERM; echo $$; while :; do sleep 0.1; done'],
      cwd: dir,
      logFile: join(dir, 'log'),
    });
    await expect
      .poll(async () => (await readFile(join(dir, 'log'), 'utf8')).trim(), { timeout: 5_000 })
      .toMatch(/^\d+$/);
    const innerPid = Number((await readFile(join(dir, 'log'), 'utf8')).trim());
    await proc.stop(500);
    expect(proc.exitInfo()?.signal).toBe('SIGKILL');
    await expect.poll(() => isAlive(innerPid), { timeout: 5_000 }).toBe(false);
  });
});

describe('freePorts (for a process to bind later, maybe again after a restart)', () => {
  it('When chosen, then the ports are distinct, free and below the ephemeral range, where no outgoing connection takes one', async () => {
    const { low } = ephemeralPortRange();
    const ports = await freePorts(6);
    expect(new Set(ports).size).toBe(6);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(low);
    }
  });

  it('When the range file reads as the kernel writes it, then its bounds are taken; when unreadable, the IANA range', () => {
    expect(ephemeralPortRange(() => '32768\t60999\n')).toEqual({ low: 32768, high: 60999 });
    expect(
      ephemeralPortRange(() => {
        throw new Error('ENOENT');
      }),
    ).toEqual({ low: 49152, high: 65535 });
  });

  it('When a drawn port is taken, then another is drawn', async () => {
    const [taken, free] = (await freePorts(2)) as [number, number];
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(taken, '127.0.0.1', resolve));
    try {
      const draws = [taken, taken, free];
      const low = ephemeralPortRange().low;
      const ports = await freePorts(1, () => ((draws.shift() ?? free) - 10_000 + 0.5) / (low - 10_000));
      expect(ports).toEqual([free]);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });
});
