import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { header } from '../soak/ledger-types';

/**
 * A webhook receiver that holds every request open until released, so that the attempts a dispatcher has in
 * flight to one host can be counted while they are in flight: a concurrency limit is then read as a count
 * (requests open at once), not inferred from times.
 */
export interface HoldingReceiver {
  url: string;
  /** Requests open right now (received, not yet answered or abandoned by the sender). */
  readonly open: number;
  /** The most requests ever open at once. */
  readonly maxOpen: number;
  /** Requests received per event (the `x-service-event-id` header). */
  readonly requestsByEvent: ReadonlyMap<string, number>;
  /** Answers 200 to every held request and to every later one at once. */
  release(): void;
  close(): Promise<void>;
}

export async function startHoldingReceiver(): Promise<HoldingReceiver> {
  const held: ServerResponse[] = [];
  const requestsByEvent = new Map<string, number>();
  let holding = true;
  let open = 0;
  let maxOpen = 0;
  const server = createServer((req, res) => {
    open += 1;
    maxOpen = Math.max(maxOpen, open);
    // Closed when the answer is handed to the socket ('finish', before the sender can start its next request)
    // or when the sender went away without one ('close': a killed dispatcher), whichever comes first.
    let closed = false;
    const close = () => {
      if (!closed) open -= 1;
      closed = true;
    };
    res.once('finish', close);
    res.once('close', close);
    const eventId = header(req.headers, 'x-service-event-id');
    if (eventId) requestsByEvent.set(eventId, (requestsByEvent.get(eventId) ?? 0) + 1);
    req.resume();
    req.once('end', () => (holding ? held.push(res) : res.end('ok')));
  });
  const release = () => {
    holding = false;
    for (const res of held.splice(0)) if (!res.destroyed) res.end('ok');
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/held`,
    get open() {
      return open;
    },
    get maxOpen() {
      return maxOpen;
    },
    requestsByEvent,
    release,
    async close() {
      release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
