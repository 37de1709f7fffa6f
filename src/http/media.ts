/**
 * `GET`/`HEAD /media/<file id>?expires=…&signature=…`: the file a download's signed link names
 * (src/domain/media-links.ts), streamed from GridFS as the client takes it (backpressure: a slow
 * client holds a megabyte, not the file). The link is checked without the database: 403 when it
 * is not one of ours, 410 when it has expired, then 404 if the file is gone (the recording's media
 * was replaced). A file's bytes never change, so its id is a strong ETag: `If-None-Match` (304),
 * `Range` (one range, 206; past the end, 416) and `If-Range` work as video players and download
 * managers expect. Several ranges in one request get the whole file, which HTTP allows.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { ObjectId } from 'mongodb';
import type { MediaFileDoc, MediaStore } from '../db/media-store.js';
import { isDatabaseUnavailable } from '../db/outage.js';
import { UNAVAILABLE_RETRY_AFTER_SECONDS } from '../domain/errors.js';
import { MEDIA_PATH, type MediaLinks } from '../domain/media-links.js';
import { clientGone, sendJson } from './respond.js';
import type { Door, RequestInfo } from './server.js';

/** Bytes `first` to `last` inclusive; null for no range (the whole file); 'unsatisfiable' past the end. */
export function rangeOf(
  header: string | undefined,
  size: number,
): { first: number; last: number } | null | 'unsatisfiable' {
  const match = header && /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  // No header, another unit, several ranges or a malformed one: the whole file (RFC 9110 14.2).
  if (!match || (match[1] === '' && match[2] === '')) return null;
  const [start, end] = [match[1]!, match[2]!];
  if (start === '') {
    const suffix = Number(end);
    if (suffix === 0) return 'unsatisfiable';
    return { first: Math.max(0, size - suffix), last: size - 1 };
  }
  const first = Number(start);
  const last = end === '' ? size - 1 : Math.min(Number(end), size - 1);
  if (end !== '' && Number(end) < first) return null;
  return first >= size ? 'unsatisfiable' : { first, last };
}

const fileIdPattern = /^[0-9a-f]{24}$/;

export function mediaDoor(store: MediaStore, links: MediaLinks): Door {
  return {
    path: MEDIA_PATH,
    handler: (req, res, info) => serveMedia(store, links, req, res, info),
  };
}

async function serveMedia(
  store: MediaStore,
  links: MediaLinks,
  req: IncomingMessage,
  res: ServerResponse,
  info: RequestInfo,
): Promise<void> {
  info.route = `${MEDIA_PATH}{file_id}`;
  if (req.method !== 'GET' && req.method !== 'HEAD')
    return sendJson(res, 405, { error: `Use GET or HEAD for media links.` }, { allow: 'GET, HEAD' });
  const url = new URL(req.url ?? '/', 'http://media');
  const fileId = url.pathname.slice(MEDIA_PATH.length);
  const check = fileIdPattern.test(fileId)
    ? links.check(fileId, url.searchParams.get('expires'), url.searchParams.get('signature'))
    : 'forged';
  if (check === 'forged')
    return sendJson(res, 403, {
      error: 'This link is not valid (its signature does not match): use the url of a download as given.',
    });
  if (check === 'expired')
    return sendJson(res, 410, {
      error: 'This link has expired: request a new download (POST /external/v1/recordings/{id}/download).',
    });
  let file: MediaFileDoc | null;
  try {
    file = await store.file(ObjectId.createFromHexString(fileId));
  } catch (error) {
    if (!isDatabaseUnavailable(error)) throw error;
    return sendJson(
      res,
      503,
      { error: 'The database is unavailable; try again shortly.' },
      { 'retry-after': String(UNAVAILABLE_RETRY_AFTER_SECONDS) },
    );
  }
  if (!file)
    return sendJson(res, 404, {
      error: "This file is no longer stored (the recording's media was replaced): request a new download.",
    });
  await sendFile(store, file, req, res);
}

async function sendFile(store: MediaStore, file: MediaFileDoc, req: IncomingMessage, res: ServerResponse) {
  const etag = `"${file._id.toHexString()}"`;
  const headers: Record<string, string> = {
    'content-type': file.metadata?.contentType ?? 'application/octet-stream',
    etag,
    'last-modified': file.uploadDate.toUTCString(),
    'accept-ranges': 'bytes',
    // The link is the credential: caches in between must not keep the file for others.
    'cache-control': 'private, max-age=3600',
  };
  if (req.headers['if-none-match']?.split(/\s*,\s*/).includes(etag)) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  const ifRange = req.headers['if-range'];
  const range = ifRange === undefined || ifRange === etag ? rangeOf(req.headers.range, file.length) : null;
  if (range === 'unsatisfiable') {
    res.writeHead(416, { ...headers, 'content-range': `bytes */${file.length}` });
    res.end();
    return;
  }
  const { first, last } = range ?? { first: 0, last: file.length - 1 };
  res.writeHead(range ? 206 : 200, {
    ...headers,
    'content-length': String(last - first + 1),
    ...(range ? { 'content-range': `bytes ${first}-${last}/${file.length}` } : {}),
  });
  if (req.method === 'HEAD' || file.length === 0) {
    res.end();
    return;
  }
  try {
    await pipeline(store.read(file, first, last), res);
  } catch (error) {
    // A player seeking elsewhere closes its request: routine. Anything else (the read failed
    // after the headers went) is logged by the server, which cuts the connection.
    if (!clientGone(req)) throw error;
  }
}
