/**
 * The /graphql door: Yoga answers with a fetch Response, and this door writes it to node:http.
 * Whole JSON answers go through the shared compression (Yoga has them in memory already);
 * streamed answers (SSE subscriptions, multipart) are written as Yoga streams them, untouched,
 * so compression never buffers an event. The GraphiQL page is taken from Yoga once, compressed
 * once and then answered from memory with an ETag.
 *
 * Why not Yoga's own `useContentEncoding` plugin: it matches Accept-Encoding tokens without
 * trimming or q-values (so "gzip, br" only ever finds gzip), has no minimum size and no Vary,
 * compresses event streams too, and would recompress the 9 MB GraphiQL page on every request.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { sendNodeResponse } from '@whatwg-node/server';
import { partsOf } from '../domain/raw-json.js';
import type { GraphQLServer, ServerContext } from '../graphql/yoga.js';
import {
  entityTag,
  notModified,
  PrecompressedPage,
  sendCompressible,
  sendNotModified,
} from './compression.js';
import type { Door } from './server.js';

const streamed = /^(text\/event-stream|multipart\/)/i;

/** Yoga's own test (graphql-yoga's shouldRenderGraphiQL), on the node request. */
function wantsGraphiQL(req: IncomingMessage): boolean {
  return req.method === 'GET' && (req.headers.accept ?? '').includes('text/html');
}

/**
 * The page embeds this process's GraphiQL setup (in demo mode the demo admin's key): a browser may
 * keep it but must revalidate on each open (a 304 thanks to the strong ETag), so a restart with
 * other settings shows at once; `private` keeps the key out of shared caches.
 */
const graphiqlCacheControl = 'private, no-cache';
/** The same URL answers JSON to API clients: caches must key the page on Accept too. */
const graphiqlHeaders: OutgoingHttpHeaders = { vary: 'Accept' };

function headersOf(response: Response): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  return headers;
}

/**
 * A body's bytes as a Buffer, not copied: Yoga's fetch ponyfill answers arrayBuffer() with the very
 * Buffer the answer was written into, which Buffer.from would copy byte by byte (~2 ms a page of
 * transcripts) and which `partsOf` knows.
 */
function bytesOf(body: ArrayBuffer | Uint8Array): Buffer {
  if (Buffer.isBuffer(body)) return body;
  return ArrayBuffer.isView(body)
    ? Buffer.from(body.buffer, body.byteOffset, body.byteLength)
    : Buffer.from(body);
}

export function graphqlDoor(graphql: GraphQLServer): Door {
  let graphiql: Promise<PrecompressedPage> | undefined;
  return {
    path: '/graphql',
    handler: async (req: IncomingMessage, res: ServerResponse, { requestId }) => {
      if (graphiql && wantsGraphiQL(req)) return (await graphiql).send(req, res, graphiqlHeaders);
      // req and res as Yoga's own node listener would give them: the failed-auth throttle reads the
      // client's address, load shedding holds its share until res closes.
      const response = await graphql.handleNodeRequestAndResponse(req, res, {
        requestId,
        req,
        res,
      } satisfies ServerContext);
      const contentType = response.headers.get('content-type') ?? '';
      if (streamed.test(contentType) || !response.body) {
        await sendNodeResponse(response, res, req, false);
        return;
      }
      const body = bytesOf((await response.arrayBuffer()) as ArrayBuffer | Uint8Array);
      if (response.status === 200 && contentType.startsWith('text/html') && wantsGraphiQL(req)) {
        graphiql ??= PrecompressedPage.create(body, contentType, graphiqlCacheControl);
        return (await graphiql).send(req, res, graphiqlHeaders);
      }
      const headers = headersOf(response);
      // A GET answer carries a strong ETag of its bytes: asked again with it, after the request ran
      // as any other (authenticated, rate-limited), the unchanged answer is a 304 with no body.
      if (req.method === 'GET' && response.status === 200) {
        headers.etag = entityTag(body);
        headers['cache-control'] = 'private, no-cache';
        if (notModified(req, headers.etag)) {
          sendNotModified(res, headers);
          return;
        }
      }
      // In the parts it was written in, when it is answered from stored content (content-bytes.ts).
      await sendCompressible(req, res, response.status, headers, partsOf(body));
    },
  };
}
