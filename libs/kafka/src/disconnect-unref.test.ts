import { connect, type Socket } from 'node:net';
import { freePort } from '@checkout/engines';
import Connection from 'kafkajs/src/network/connection.js';
import { describe, expect, it } from 'vitest';
import { mendDisconnectUnref } from './disconnect-unref';

interface KafkajsConnection {
  socket: Socket | null;
  connect(): Promise<void>;
  disconnect(): Promise<boolean>;
}

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const logger = { ...silent, namespace: () => silent };

describe('a kafkajs connection whose broker refused it', () => {
  it('When it is disconnected again and again, then no connect listener piles up on its dead socket', async () => {
    mendDisconnectUnref();
    const Constructor = Connection as unknown as new (options: object) => KafkajsConnection;
    const connection = new Constructor({
      host: '127.0.0.1',
      // Nothing listens there: the dial is refused and its socket destroyed.
      port: await freePort(),
      logger,
      socketFactory: (o: { host: string; port: number; onConnect: () => void }) => connect(o, o.onConnect),
      connectionTimeout: 1_000,
      requestTimeout: 1_000,
    });
    await expect(connection.connect()).rejects.toThrow(/ECONNREFUSED/);
    const socket = connection.socket;
    expect(socket?.destroyed).toBe(true);
    // The listeners the refused dial left (its own connect callback); kafkajs added one more per disconnect.
    const dialListeners = socket?.listenerCount('connect');
    for (let i = 0; i < 12; i++) await connection.disconnect();
    expect(connection.socket).toBe(socket);
    expect(socket?.listenerCount('connect')).toBe(dialListeners);
  });
});
