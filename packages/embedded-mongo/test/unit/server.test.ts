import net from 'node:net';
import { BSON } from 'bson';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EmbeddedMongo, startEmbeddedMongo } from '../../src/index.js';
import { OP_MSG, OP_MSG_FLAGS, OP_QUERY, parseReply, serializeOpMsgRequest } from '../../src/wire.js';

let engine: EmbeddedMongo;
let client: MongoClient;

beforeAll(async () => {
  engine = await startEmbeddedMongo();
  client = await new MongoClient(engine.uri).connect();
});

afterAll(async () => {
  await client?.close();
  await engine?.close();
});

interface RawResult {
  replies: Buffer[];
  closed: boolean;
}

/** Sends raw bytes and collects complete reply messages until `expected` arrived or the socket closed. */
function rawExchange(
  port: number,
  payload: Buffer | Buffer[],
  expected = 1,
  waitMs = 1500,
): Promise<RawResult> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const replies: Buffer[] = [];
    let pending = Buffer.alloc(0);
    let settled = false;
    const finish = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ replies, closed });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on('connect', async () => {
      const parts = Array.isArray(payload) ? payload : [payload];
      for (const part of parts) {
        socket.write(part);
        if (parts.length > 1) await new Promise((r) => setTimeout(r, 2));
      }
    });
    socket.on('data', (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 4 && pending.length >= pending.readInt32LE(0)) {
        const len = pending.readInt32LE(0);
        replies.push(pending.subarray(0, len));
        pending = pending.subarray(len);
      }
      if (replies.length >= expected) finish(false);
    });
    socket.on('close', () => finish(true));
    socket.on('error', (err) => {
      if (!settled && (err as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(err);
    });
  });
}

function opMsg(body: object, flags = 0, requestId = 7): Buffer {
  return serializeOpMsgRequest(requestId, body as Record<string, unknown>, flags);
}

describe('wire robustness', () => {
  it('closes a connection that sends garbage while other clients keep working', async () => {
    const result = await rawExchange(engine.port, Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
    expect(result.closed).toBe(true);
    expect(result.replies).toHaveLength(0);
    const c = client.db('robust').collection('c');
    await c.insertOne({ still: 'alive' });
    expect(await c.countDocuments()).toBe(1);
  });

  it('closes on an unknown opcode, bad BSON and a too-small length', async () => {
    const unknownOp = Buffer.alloc(20);
    unknownOp.writeInt32LE(20, 0);
    unknownOp.writeInt32LE(1, 4);
    unknownOp.writeInt32LE(0, 8);
    unknownOp.writeInt32LE(9999, 12);
    expect((await rawExchange(engine.port, unknownOp)).closed).toBe(true);

    const good = opMsg({ ping: 1, $db: 'admin' });
    const badBson = Buffer.from(good);
    badBson[21 + 4] = 0x55; // corrupt the first element's type byte (0x55 is not a BSON type)
    expect((await rawExchange(engine.port, badBson)).closed).toBe(true);

    const tiny = Buffer.alloc(8);
    tiny.writeInt32LE(4, 0);
    expect((await rawExchange(engine.port, tiny)).closed).toBe(true);

    expect(await client.db('admin').command({ ping: 1 })).toMatchObject({ ok: 1 });
  });

  it('answers OP_MSG ping, including when the message arrives in fragments', async () => {
    const msg = opMsg({ ping: 1, $db: 'admin' }, 0, 42);
    const whole = await rawExchange(engine.port, msg);
    const { header, doc } = parseReply(whole.replies[0]!);
    expect(header.opCode).toBe(OP_MSG);
    expect(header.responseTo).toBe(42);
    expect(doc).toMatchObject({ ok: 1 });

    const fragments = [...msg].map((byte) => Buffer.from([byte]));
    const split = await rawExchange(engine.port, fragments);
    expect(parseReply(split.replies[0]!).doc).toMatchObject({ ok: 1 });
  });

  it('pipelines several messages in one write', async () => {
    const both = Buffer.concat([
      opMsg({ ping: 1, $db: 'admin' }, 0, 1),
      opMsg({ buildInfo: 1, $db: 'admin' }, 0, 2),
    ]);
    const res = await rawExchange(engine.port, both, 2);
    expect(res.replies.map((r) => parseReply(r).header.responseTo)).toEqual([1, 2]);
    expect(parseReply(res.replies[1]!).doc.version).toBeTypeOf('string');
  });

  it('answers a legacy OP_QUERY handshake with OP_REPLY', async () => {
    const query = BSON.serialize({ isMaster: 1, helloOk: true });
    const ns = Buffer.from('admin.$cmd\0', 'utf8');
    const buf = Buffer.alloc(16 + 4 + ns.length + 8 + query.length);
    buf.writeInt32LE(buf.length, 0);
    buf.writeInt32LE(5, 4);
    buf.writeInt32LE(0, 8);
    buf.writeInt32LE(OP_QUERY, 12);
    buf.writeInt32LE(0, 16);
    ns.copy(buf, 20);
    buf.writeInt32LE(0, 20 + ns.length);
    buf.writeInt32LE(-1, 24 + ns.length);
    Buffer.from(query).copy(buf, 28 + ns.length);
    const res = await rawExchange(engine.port, buf);
    const { header, doc } = parseReply(res.replies[0]!);
    expect(header.opCode).toBe(1);
    expect(header.responseTo).toBe(5);
    expect(doc).toMatchObject({ ismaster: true, helloOk: true, ok: 1, maxWireVersion: expect.any(Number) });
  });

  it('accepts document sequences (section kind 1)', async () => {
    const body = BSON.serialize({ insert: 'seq', $db: 'rawdb' });
    const docs = [BSON.serialize({ _id: 1, a: 'x' }), BSON.serialize({ _id: 2, a: 'y' })];
    const ident = Buffer.from('documents\0', 'utf8');
    const seqSize = 4 + ident.length + docs.reduce((n, d) => n + d.length, 0);
    const seq = Buffer.alloc(1 + seqSize);
    seq[0] = 1;
    seq.writeInt32LE(seqSize, 1);
    ident.copy(seq, 5);
    let off = 5 + ident.length;
    for (const d of docs) {
      Buffer.from(d).copy(seq, off);
      off += d.length;
    }
    const header = Buffer.alloc(21);
    header.writeInt32LE(OP_MSG, 12);
    header[20] = 0;
    const msg = Buffer.concat([header, Buffer.from(body), seq]);
    msg.writeInt32LE(msg.length, 0);
    const res = await rawExchange(engine.port, msg);
    expect(parseReply(res.replies[0]!).doc).toMatchObject({ n: 2, ok: 1 });
    expect(await client.db('rawdb').collection('seq').find().toArray()).toEqual([
      { _id: 1, a: 'x' },
      { _id: 2, a: 'y' },
    ]);
  });

  it('does not reply to moreToCome requests but executes them', async () => {
    const msg = opMsg({ insert: 'fire', documents: [{ _id: 'f1' }], $db: 'rawdb' }, OP_MSG_FLAGS.moreToCome);
    const res = await rawExchange(engine.port, msg, 1, 300);
    expect(res.replies).toHaveLength(0);
    expect(await client.db('rawdb').collection('fire').countDocuments()).toBe(1);
  });

  it('reports a missing $db as an error reply', async () => {
    const res = await rawExchange(engine.port, opMsg({ ping: 1 }));
    expect(parseReply(res.replies[0]!).doc).toMatchObject({ ok: 0, code: 40571 });
  });
});

describe('engine lifecycle', () => {
  it('can listen on a fixed port and refuses a port that is taken', async () => {
    const probe = net.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));

    const fixed = await startEmbeddedMongo({ port });
    try {
      expect(fixed.port).toBe(port);
      expect(fixed.uri).toBe(`mongodb://127.0.0.1:${port}/?directConnection=true`);
      await expect(startEmbeddedMongo({ port })).rejects.toMatchObject({ code: 'EADDRINUSE' });
      const c = await new MongoClient(fixed.uri).connect();
      await c.db('x').collection('y').insertOne({ ok: true });
      expect(await c.db('x').collection('y').countDocuments()).toBe(1);
      await c.close();
    } finally {
      await fixed.close();
    }
  });

  it('two MongoClients share one engine', async () => {
    const other = await new MongoClient(engine.uri).connect();
    try {
      await client
        .db('shared')
        .collection('c')
        .insertOne({ _id: 'from-first' as never });
      expect(await other.db('shared').collection('c').findOne({})).toEqual({ _id: 'from-first' });
      await other
        .db('shared')
        .collection('c')
        .insertOne({ _id: 'from-second' as never });
      expect(await client.db('shared').collection('c').countDocuments()).toBe(2);
    } finally {
      await other.close();
    }
  });

  it('separate engines do not share data and close() frees the port', async () => {
    const a = await startEmbeddedMongo();
    const b = await startEmbeddedMongo();
    const ca = await new MongoClient(a.uri).connect();
    const cb = await new MongoClient(b.uri).connect();
    try {
      await ca.db('iso').collection('c').insertOne({ v: 1 });
      expect(await cb.db('iso').collection('c').countDocuments()).toBe(0);
    } finally {
      await ca.close();
      await cb.close();
      await a.close();
      await b.close();
    }
    const again = await startEmbeddedMongo({ port: a.port });
    await again.close();
  });
});
