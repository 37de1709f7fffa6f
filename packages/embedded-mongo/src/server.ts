// TCP server speaking the MongoDB wire protocol. Every connection gets its own framer; a malformed
// message closes only that connection. Commands run synchronously against the shared Engine; with a
// durable store, a reply waits until the command's changes are committed (replies keep their order).
import net from 'node:net';
import {
  type CommandContext,
  type ConnectionInfo,
  connectionClosed,
  connectionOpened,
  executeCommand,
} from './commands/index.js';
import { CommandError, ErrorCode } from './errors.js';
import type { Engine } from './storage.js';
import type { Document } from './values.js';
import {
  MessageFramer,
  type OpMsgRequest,
  type OpQueryRequest,
  parseMessage,
  type Request,
  serializeOpMsg,
  serializeOpReply,
} from './wire.js';

export interface ServerOptions {
  host?: string | undefined;
  /** 0 (default) picks an ephemeral port. */
  port?: number | undefined;
}

export interface RunningServer {
  uri: string;
  host: string;
  port: number;
  close(): Promise<void>;
}

const OP_REPLY_QUERY_FAILURE = 2;

class Connection {
  private readonly framer = new MessageFramer();
  private readonly info: ConnectionInfo;
  private nextRequestId = 1;
  /** Replies still waiting for a commit; later replies queue behind them. */
  private pending: Promise<void> | undefined;

  constructor(
    private readonly socket: net.Socket,
    private readonly engine: Engine,
  ) {
    this.info = {
      id: engine.allocateConnectionId(),
      remoteAddress: socket.remoteAddress,
      remotePort: socket.remotePort,
    };
    connectionOpened(engine);
    socket.once('close', () => connectionClosed(engine));
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', () => socket.destroy());
  }

  private onData(chunk: Buffer): void {
    let messages: Buffer[];
    try {
      messages = this.framer.push(chunk);
    } catch {
      this.socket.destroy();
      return;
    }
    for (const raw of messages) {
      if (this.socket.destroyed) return;
      let request: Request;
      try {
        request = parseMessage(raw);
      } catch {
        this.socket.destroy();
        return;
      }
      const failure = this.engine.failure;
      const reply = failure
        ? this.refuse(request, failure)
        : request.kind === 'msg'
          ? this.handleMsg(request)
          : this.handleQuery(request);
      this.send(request, reply, failure ? undefined : this.engine.commit());
    }
  }

  /** Writes the reply once the command's commit (if any) is durable; a failed commit replies its error. */
  private send(request: Request, reply: Buffer | undefined, committed: Promise<void> | undefined): void {
    if (!committed && !this.pending) {
      if (reply) this.socket.write(reply);
      return;
    }
    const previous = this.pending;
    const done = (async () => {
      await previous;
      try {
        await committed;
        if (reply) this.socket.write(reply);
      } catch (err) {
        const failure = err instanceof Error ? err : new Error(String(err));
        const refusal = this.refuse(request, failure);
        if (refusal) this.socket.write(refusal);
      }
    })();
    this.pending = done;
    void done.then(() => {
      if (this.pending === done) this.pending = undefined;
    });
  }

  /** The error reply of a command whose changes could not be saved. */
  private refuse(request: Request, failure: Error): Buffer | undefined {
    const error = new CommandError(
      failure instanceof CommandError ? failure.code : ErrorCode.InternalError,
      `the embedded engine could not save to disk and stopped accepting commands: ${failure.message}`,
    ).toReply();
    if (request.kind === 'msg') {
      if (request.moreToCome) return undefined;
      return serializeOpMsg(this.nextRequestId++, request.header.requestId, error);
    }
    return serializeOpReply(this.nextRequestId++, request.header.requestId, [error]);
  }

  private context(dbName: string, request: Request): CommandContext {
    return { engine: this.engine, dbName, connection: this.info, requestBytes: request.header.messageLength };
  }

  private handleMsg(request: OpMsgRequest): Buffer | undefined {
    const dbName = request.body.$db;
    let reply: Document;
    if (typeof dbName !== 'string' || dbName.length === 0) {
      reply = new CommandError(ErrorCode.Location40571, 'OP_MSG requests require a $db argument').toReply();
    } else {
      reply = executeCommand(request.body, this.context(dbName, request));
    }
    if (request.moreToCome) return undefined;
    return this.serialize(
      (doc) => serializeOpMsg(this.nextRequestId++, request.header.requestId, doc),
      reply,
    );
  }

  private handleQuery(request: OpQueryRequest): Buffer {
    const name = request.fullCollectionName;
    if (!name.endsWith('.$cmd')) {
      return serializeOpReply(
        this.nextRequestId++,
        request.header.requestId,
        [{ $err: 'OP_QUERY is only supported for commands', code: 5739101, ok: 0 }],
        OP_REPLY_QUERY_FAILURE,
      );
    }
    const dbName = name.slice(0, -'.$cmd'.length);
    const raw = request.query;
    const command =
      '$query' in raw && typeof raw.$query === 'object' && raw.$query ? (raw.$query as Document) : raw;
    const reply = executeCommand(command, this.context(dbName, request));
    return this.serialize(
      (doc) => serializeOpReply(this.nextRequestId++, request.header.requestId, [doc]),
      reply,
    );
  }

  private serialize(write: (doc: Document) => Buffer, reply: Document): Buffer {
    try {
      return write(reply);
    } catch (err) {
      return write(new CommandError(10334, `BSONObjectTooLarge: ${(err as Error).message}`).toReply());
    }
  }
}

export async function startServer(engine: Engine, options: ServerOptions = {}): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    new Connection(socket, engine);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string')
    throw new Error('embedded-mongo: unexpected server address');
  const port = address.port;
  const uriHost = host.includes(':') ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    uri: `mongodb://${uriHost}:${port}/?directConnection=true`,
    host,
    port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      });
      return closing;
    },
  };
}
