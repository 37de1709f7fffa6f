/**
 * Cuts a connection whose client has taken none of its answer for the send bound, so the answer's
 * memory and its admission share are given back on time.
 *
 * node's idle timer (server.timeout) does not do it alone: when it fires while a write is half
 * done, it sees the kernel took part of that write since it began and waits one whole period more.
 * A large answer is always half written when its client stops reading, so it was cut after twice
 * the bound (61-62 s with 30 s). Progress here is the same measure node's timer reads, the bytes
 * libuv still has to write (no public property tells it): unchanged for the bound, the socket is
 * destroyed, which closes the response.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** The bytes of a socket's pending writes that the kernel has not taken yet (0: none pending). */
function unsentBytes(socket: Socket): number {
  const handle = (socket as Socket & { _handle?: { writeQueueSize?: number } | null })._handle;
  return handle?.writeQueueSize ?? 0;
}

export function cutStalledAnswers(server: Server, boundMs: number): void {
  // Looked at twice a second (more often for a short bound): a stalled answer is cut within
  // half a second past the bound.
  const everyMs = Math.max(10, Math.min(500, Math.floor(boundMs / 10)));
  const sockets = new Map<Socket, { unsent: number; since: number }>();
  server.on('connection', (socket: Socket) => {
    sockets.set(socket, { unsent: 0, since: performance.now() });
    socket.once('close', () => sockets.delete(socket));
  });
  const timer = setInterval(() => {
    const now = performance.now();
    for (const [socket, seen] of sockets) {
      const unsent = unsentBytes(socket);
      if (unsent !== seen.unsent) {
        seen.unsent = unsent;
        seen.since = now;
      } else if (unsent > 0 && now - seen.since >= boundMs) socket.destroy();
    }
  }, everyMs);
  timer.unref();
  server.once('close', () => clearInterval(timer));
}
