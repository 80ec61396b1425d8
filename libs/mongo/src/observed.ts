import { channel } from 'node:diagnostics_channel';

/**
 * Every client connectMongo opens is announced on this channel, for whoever observes the process's database
 * clients: the command counters of the lib's testing entry point (testing.ts), in tests and benches. Nothing
 * subscribes in production, and a channel without subscribers costs nothing. Not exported from the index.
 */
export const openedClients = channel('checkout.mongo.client-opened');
