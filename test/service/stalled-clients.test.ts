/**
 * Clients that stop reading large answers: the connection is cut at SEND_TIMEOUT_MS (not twice
 * that), and while their answers wait, one key's stalled answers cannot refuse another key's
 * large pages. Raw sockets, since a client that never reads is what is tested; pages of the bench
 * dataset, whose transcripts make answers larger than the kernel's socket buffers.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { benchUsers, generateMeeting, loadBenchDataset } from '../../bench/dataset.js';
import { recordingInputOf, recordingSchema } from '../../src/domain/recording-format.js';
import { storeRecording } from '../../src/domain/recordings.js';
import { startTestApp, type TestApp } from '../support/app.js';

const SEND_TIMEOUT_MS = 2_500;
/** 30 meetings with transcripts: estimated 6 MB, about 9 MB of JSON. */
const page = '/external/v1/meetings?limit=30&include_transcript=true';
const [keyA, keyB] = benchUsers.map((u) => u.apiKey);

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({
    SEED_DEMO: 'false',
    DELIVERY_WORKER: 'false',
    SEND_TIMEOUT_MS: String(SEND_TIMEOUT_MS),
    // Three such pages at once, whoever asks.
    ADMISSION_HEAVY_PER_CREDENTIAL: '3',
    ADMISSION_BUDGET_MB: '18',
  });
  await loadBenchDataset(t.app.database.collections, {
    meetings: 30,
    minEntries: 1500,
    maxEntries: 2000,
    seed: 7,
  });
  // One very long transcript (about 5 MB of JSON): an MCP answer carries it twice (text and
  // structured content), more than the kernel's socket buffers hold.
  const long = generateMeeting(7, 30, 31, { minEntries: 30_000, maxEntries: 30_000 });
  await storeRecording(t.app.database.collections, recordingInputOf(recordingSchema.parse(long)));
  longRecordingId = long.recording_id;
}, 60_000);
afterAll(() => t?.close());
let longRecordingId: number;

interface Stalled {
  socket: Socket;
  status: number;
  retryAfter: string | undefined;
  contentLength: number;
  /** When the first bytes of the answer arrived (after which nothing more is read). */
  firstByteAt: number;
  /** When the server closed its side of the connection. */
  cutAt: Promise<number>;
}

/** Sends a GET and reads the first bytes of the answer (its head), then stops reading. */
function stalledGet(path: string, key: string): Promise<Stalled> {
  return stalledRequest(`GET ${path} HTTP/1.1\r\nHost: test\r\nx-api-key: ${key}\r\n\r\n`);
}

/** Sends `request` (raw HTTP) and reads the first bytes of the answer, then stops reading. */
function stalledRequest(request: string): Promise<Stalled> {
  const { hostname, port } = new URL(t.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let cut: (at: number) => void = () => {};
    const cutAt = new Promise<number>((r) => {
      cut = r;
    });
    // The server's end of this connection, to see when the server closes it.
    const onConnection = (serverSide: Socket) => {
      if (serverSide.remotePort !== socket.localPort) return;
      t.app.server.off('connection', onConnection);
      serverSide.once('close', () => cut(performance.now()));
    };
    t.app.server.on('connection', onConnection);
    socket.on('error', () => {});
    socket.once('connect', () => socket.write(request));
    socket.once('data', (chunk: Buffer) => {
      socket.pause();
      const head = chunk.toString('latin1').split('\r\n\r\n')[0] ?? '';
      const header = (name: string) => new RegExp(`^${name}: (.*)$`, 'im').exec(head)?.[1];
      resolve({
        socket,
        status: Number(head.split(' ')[1]),
        retryAfter: header('retry-after'),
        contentLength: Number(header('content-length')),
        firstByteAt: performance.now(),
        cutAt,
      });
    });
    socket.once('close', () => reject(new Error('closed before answering')));
  });
}

/** Reads what is left of the answer until the connection ends; resolves with the bytes read. */
function readToEnd(socket: Socket): Promise<number> {
  return new Promise((resolve) => {
    let bytes = 0;
    socket.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    socket.once('close', () => resolve(bytes));
    socket.resume();
  });
}

describe('clients that stop reading', () => {
  it('a large answer nobody reads is cut at SEND_TIMEOUT_MS, not twice that', async () => {
    const stalled = await stalledGet(page, keyA!);
    expect(stalled.status).toBe(200);
    const stalledMs = (await stalled.cutAt) - stalled.firstByteAt;
    console.log(`stalled answer cut after ${Math.round(stalledMs)} ms (bound ${SEND_TIMEOUT_MS} ms)`);
    expect(stalledMs).toBeGreaterThan(SEND_TIMEOUT_MS * 0.9);
    expect(stalledMs).toBeLessThan(SEND_TIMEOUT_MS + 1_000);
    // What the client gets once it reads again: part of the answer, and the end of the connection.
    const read = await readToEnd(stalled.socket);
    expect(read).toBeLessThan(stalled.contentLength);
  }, 20_000);

  it('an MCP tool answer nobody reads is cut at SEND_TIMEOUT_MS too', async () => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'get_meeting_transcript', arguments: { recording_id: longRecordingId } },
    });
    const stalled = await stalledRequest(
      `POST /mcp HTTP/1.1\r\nHost: test\r\nx-api-key: ${keyA}\r\ncontent-type: application/json\r\n` +
        `accept: application/json, text/event-stream\r\nmcp-protocol-version: 2025-11-25\r\n` +
        `content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
    expect(stalled.status).toBe(200);
    const stalledMs = (await stalled.cutAt) - stalled.firstByteAt;
    expect(stalledMs).toBeGreaterThan(SEND_TIMEOUT_MS * 0.9);
    expect(stalledMs).toBeLessThan(SEND_TIMEOUT_MS + 1_000);
    stalled.socket.destroy();
  }, 30_000);

  it("one key's stalled answers do not refuse another key's large page", async () => {
    const stalled: Stalled[] = [];
    try {
      for (let i = 0; i < 3; i++) stalled.push(await stalledGet(page, keyA!));
      // The key's first answer waits for its reader; more are refused to it, not to everyone.
      expect(stalled[0]!.status).toBe(200);
      for (const refused of stalled.filter((s) => s.status !== 200)) {
        expect(refused.status).toBe(429);
        expect(refused.retryAfter).toBe('1');
      }
      const other = await fetch(`${t.url}${page}`, { headers: { 'x-api-key': keyB! } });
      const body = await other.text();
      expect(other.status, body).toBe(200);
    } finally {
      for (const s of stalled) s.socket.destroy();
    }
  }, 20_000);
});
