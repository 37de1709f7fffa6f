/** The REST compatibility layer for /external/v1: wire `createRestDoor` into the HTTP server. */

export { loadOperations, type Operation } from './documents.js';
export {
  createRestDoor,
  MAX_BODY_BYTES,
  REST_PREFIX,
  type RestDoorOptions,
  type RouteCall,
  RouteRunner,
} from './door.js';
export { API_KEY_SCHEME, buildOpenApiDocument } from './openapi.js';
export { RestError } from './params.js';
export type { RestResult, Route } from './route.js';
export { routes } from './routes.js';
