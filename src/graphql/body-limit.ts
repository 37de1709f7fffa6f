/**
 * How much of a request body /graphql reads: `maxBodyBytes` for everyone (checked on Content-Length
 * before reading, then counted while reading, as Yoga's own limit does), and `maxUploadBytes` for
 * the one caller that may upload media, the ingestion service, in a GraphQL multipart request
 * (Yoga's multipart parser holds the files in memory, so the limit bounds that too). Who may
 * upload is decided from the headers alone, before a byte of the body is read.
 */
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';

export interface BodyLimits {
  maxBodyBytes: number;
  maxUploadBytes: number;
  /** Whether the request's credential may send uploads (checked without the database). */
  mayUpload(headers: Headers): boolean;
}

const multipart = /^multipart\/form-data\s*(;|$)/i;

function tooLarge(limit: number, upload: boolean): GraphQLError {
  const what = upload
    ? `The upload is too large: at most ${limit} bytes (GRAPHQL_MAX_UPLOAD_MB). Store larger media with \`npm run ingest -- --media\`, which streams it.`
    : `The request body is too large: at most ${limit} bytes. Send a smaller document and variables, or split the work into several requests.`;
  return new GraphQLError(what, { extensions: { code: 'REQUEST_ENTITY_TOO_LARGE', http: { status: 413 } } });
}

type FetchAPI = { Request: typeof Request; TransformStream: typeof TransformStream };

/** A request whose body fails once more than `limit` bytes of it were read. */
function counted(request: Request, limit: number, upload: boolean, fetchAPI: FetchAPI): Request {
  if (!request.body) return request;
  let read = 0;
  // As Yoga's own limit does: a native body needs the native TransformStream, a ponyfill one the ponyfill's.
  const Transform =
    request.body instanceof ReadableStream ? globalThis.TransformStream : fetchAPI.TransformStream;
  const body = request.body.pipeThrough(
    new Transform<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        read += chunk.byteLength;
        if (read > limit) controller.error(tooLarge(limit, upload));
        else controller.enqueue(chunk);
      },
    }),
  );
  return new fetchAPI.Request(request.url, {
    method: request.method,
    headers: request.headers,
    signal: request.signal,
    body,
    duplex: 'half',
  } as RequestInit);
}

export function bodyLimit(limits: BodyLimits): Plugin {
  return {
    onRequestParse({ request, requestParser, setRequestParser, fetchAPI }) {
      const upload =
        multipart.test(request.headers.get('content-type') ?? '') && limits.mayUpload(request.headers);
      const limit = upload ? limits.maxUploadBytes : limits.maxBodyBytes;
      const declared = request.headers.get('content-length');
      if (declared !== null) {
        if (!/^\d+$/.test(declared))
          throw new GraphQLError('Content-Length header is invalid.', {
            extensions: { code: 'BAD_REQUEST', http: { status: 400 } },
          });
        if (Number(declared) > limit) throw tooLarge(limit, upload);
      }
      if (!requestParser || !request.body) return;
      const parse = requestParser;
      setRequestParser((req) => parse(counted(req, limit, upload, fetchAPI)));
    },
  };
}
