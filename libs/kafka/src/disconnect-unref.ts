// kafkajs 2.2.4's Connection.disconnect ends its socket and calls `socket.unref()`. Node's unref on a socket that has
// no handle (one destroyed by a refused or broken connection) does not unref: it adds a once('connect') listener to
// unref later, and a destroyed socket never connects. kafkajs may disconnect a connection whose broker is down many
// times without dialling it in between, and each time adds one: Node's "MaxListenersExceededWarning: 11 connect
// listeners added to [Socket]" in the test tiers' output around broker restarts (which of kafkajs' callers
// disconnects that often was not found; the warning's stack ends in a Promise.all). A destroyed socket holds
// nothing that keeps the process alive, so its unref is skipped; any other socket, connecting or connected, has its
// handle and is unref'd as kafkajs asks.
import type { Socket } from 'node:net';
import Connection from 'kafkajs/src/network/connection.js';

/** A destroyed socket's unref: it has no handle to unref, and no connect is coming. */
function nothingToUnref(this: Socket): Socket {
  return this;
}

let mended = false;

/** Wraps Connection.disconnect so that it never unrefs a destroyed socket. Idempotent. */
export function mendDisconnectUnref(): void {
  if (mended) return;
  mended = true;
  const disconnect = Connection.prototype.disconnect;
  Connection.prototype.disconnect = function disconnectWithoutDeadUnref(this: { socket?: Socket | null }) {
    // Only a socket already destroyed gets its own `unref`: a live socket keeps the shape every other socket has
    // (an own property on it would make Node's socket code see one more shape). One destroyed while kafkajs awaits
    // its pending requests adds one listener, once: the next disconnect finds it destroyed.
    if (this.socket?.destroyed === true && !Object.hasOwn(this.socket, 'unref')) this.socket.unref = nothingToUnref;
    return disconnect.call(this);
  };
}
