/**
 * Where the authorization server (oidc-provider) keeps its state: in the service's MongoDB, so that
 * every process shares it and a restart loses nothing; expired records are dropped by TTL indexes.
 *
 * - Access tokens are credentials (`credentials`, kind `connected_app`): a request presenting one
 *   is recognised exactly as an API key is (domain/viewer.ts), one lookup by the token's SHA-256.
 * - Apps (`apps`) are the clients; a client registering itself (RFC 7591) is stored as a public app.
 * - Everything else (codes, refresh tokens, grants, sessions, interactions) is one `oauth` record,
 *   keyed by the model and the SHA-256 of its id.
 *
 * oidc-provider names a code or a token by its value: every id is stored hashed, and the `jti` it
 * puts in the payload (the same value) is dropped, so a copy of the database grants nothing.
 *
 * Consuming a code or a refresh token is one conditional update: of two requests presenting it at
 * once, one wins and the other is refused (`invalid_grant`), as a second use would be.
 */
import { ObjectId } from 'mongodb';
import Provider, { errors } from 'oidc-provider';
import type { Collections } from '../db/collections.js';
import type { AppDoc, AppKind, CredentialDoc, OAuthRecordDoc } from '../db/documents.js';
import { revokeAccessTokens, revokeGrant } from '../domain/grants.js';
import { countInWindow } from '../domain/rate-limits.js';
import { hashSecret } from '../domain/viewer.js';
import { appOfRegistration, clientMetadataOf } from './clients.js';

type Payload = Record<string, unknown> & { jti?: string; grantId?: string; exp?: number };

/** The adapter interface oidc-provider expects (its example/my_adapter.js). */
export interface OAuthAdapter {
  upsert(id: string, payload: Payload, expiresIn?: number): Promise<void>;
  find(id: string): Promise<Payload | undefined>;
  findByUid(uid: string): Promise<Payload | undefined>;
  findByUserCode(userCode: string): Promise<Payload | undefined>;
  consume(id: string): Promise<void>;
  destroy(id: string): Promise<void>;
  revokeByGrantId(grantId: string): Promise<void>;
}

const epoch = () => Math.floor(Date.now() / 1000);
const expiry = (expiresIn: number | undefined) =>
  typeof expiresIn === 'number' ? new Date(Date.now() + expiresIn * 1000) : null;

/** What a refused second use of a code or token says (oidc-provider's words for the same case). */
const spent = (model: string) =>
  new errors.InvalidGrant(
    model === 'AuthorizationCode' ? 'authorization code already consumed' : 'refresh token already used',
  );

function recordId(model: string, id: string): string {
  return `${model}:${hashSecret(id)}`;
}

function withoutJti({ jti: _, ...payload }: Payload): Payload {
  return payload;
}

/** A model found by its id alone: nothing by uid or user code, nothing to consume (the default). */
abstract class FindsByIdOnly implements OAuthAdapter {
  abstract upsert(id: string, payload: Payload, expiresIn?: number): Promise<void>;
  abstract find(id: string): Promise<Payload | undefined>;
  abstract destroy(id: string): Promise<void>;

  async findByUid(): Promise<undefined> {
    return undefined;
  }

  async findByUserCode(): Promise<undefined> {
    return undefined; // no device flow
  }

  async consume(): Promise<void> {}

  async revokeByGrantId(_grantId: string): Promise<void> {}
}

/** Codes, refresh tokens, grants, sessions, interactions: `oauth` records. */
class RecordAdapter implements OAuthAdapter {
  constructor(
    private readonly collections: Collections,
    private readonly model: string,
    /** The apps of refresh tokens (a spent one of a confidential app is unknown, not reused). */
    private readonly appKindOf: (clientId: string) => Promise<AppKind | undefined>,
  ) {}

  async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
    const record: OAuthRecordDoc = {
      _id: recordId(this.model, id),
      model: this.model,
      payload: withoutJti(payload),
      expiresAt: expiry(expiresIn),
    };
    if (typeof payload.grantId === 'string') record.grantId = payload.grantId;
    if (typeof payload.uid === 'string') record.uid = payload.uid;
    if (this.model === 'Grant') {
      // A grant's id is no secret (it grants nothing by itself): kept, to list and revoke grants.
      record.grantId = id;
      record.accountId = String(payload.accountId);
      record.clientId = String(payload.clientId);
    }
    await this.collections.oauth.replaceOne({ _id: record._id }, record, { upsert: true });
  }

  async find(id: string): Promise<Payload | undefined> {
    const record = await this.collections.oauth.findOne({ _id: recordId(this.model, id) });
    if (!record || (record.expiresAt && record.expiresAt.getTime() <= Date.now())) return undefined;
    const payload: Payload = { ...record.payload, jti: id };
    // A spent refresh token of a confidential app is unknown (invalid_grant, nothing revoked): two
    // refreshes at once leave one with a 400 and the other's tokens working. A public app's is
    // returned spent, and oidc-provider revokes its grant (reuse detection, RFC 9700).
    if (this.model === 'RefreshToken' && payload.consumed) {
      const kind = await this.appKindOf(String(payload.clientId));
      if (kind !== 'public') return undefined;
    }
    return payload;
  }

  async findByUid(uid: string): Promise<Payload | undefined> {
    const record = await this.collections.oauth.findOne({ model: this.model, uid });
    if (!record || (record.expiresAt && record.expiresAt.getTime() <= Date.now())) return undefined;
    return { ...record.payload };
  }

  async findByUserCode(): Promise<undefined> {
    return undefined; // no device flow
  }

  async consume(id: string): Promise<void> {
    const consumed = await this.collections.oauth.findOneAndUpdate(
      { _id: recordId(this.model, id), 'payload.consumed': { $exists: false } },
      { $set: { 'payload.consumed': epoch() } },
    );
    if (consumed) return;
    // Presented twice at once: the other request consumed it first.
    const record = await this.collections.oauth.findOne({ _id: recordId(this.model, id) });
    const kind = record ? await this.appKindOf(String(record.payload.clientId)) : undefined;
    if (record?.grantId && (this.model === 'AuthorizationCode' || kind === 'public'))
      await revokeGrant(this.collections, record.grantId);
    throw spent(this.model);
  }

  async destroy(id: string): Promise<void> {
    await this.collections.oauth.deleteOne({ _id: recordId(this.model, id) });
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.collections.oauth.deleteMany({ model: this.model, grantId });
  }
}

/** Access tokens: credentials a request presents as `Authorization: Bearer`. */
class AccessTokenAdapter extends FindsByIdOnly {
  constructor(
    private readonly collections: Collections,
    private readonly appOf: (clientId: string) => Promise<AppDoc | null>,
    private readonly mcpResource: string,
  ) {
    super();
  }

  async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
    const clientId = String(payload.clientId);
    const app = await this.appOf(clientId);
    const expiresAt = expiry(expiresIn) ?? undefined;
    const credential: CredentialDoc = {
      _id: new ObjectId(),
      kind: 'connected_app',
      userId: new ObjectId(String(payload.accountId)),
      secretHash: hashSecret(id),
      prefix: '',
      label: 'OAuth access token',
      appName: app?.name ?? clientId,
      createdAt: new Date(),
      revokedAt: null,
      expiresAt: expiresAt ?? null,
      grantId: String(payload.grantId),
      clientId,
      oauth: withoutJti(payload),
    };
    if (expiresAt) credential.purgeAt = expiresAt;
    if (payload.aud === this.mcpResource) credential.audience = 'mcp';
    await this.collections.credentials.insertOne(credential); // saved once, when issued
  }

  async find(id: string): Promise<Payload | undefined> {
    const credential = await this.collections.credentials.findOne({ secretHash: hashSecret(id) });
    if (!credential?.oauth || credential.revokedAt) return undefined;
    return { ...credential.oauth, jti: id };
  }

  async destroy(id: string): Promise<void> {
    await this.collections.credentials.updateOne(
      { secretHash: hashSecret(id), revokedAt: null },
      { $set: { revokedAt: new Date() } },
    );
  }

  override async revokeByGrantId(grantId: string): Promise<void> {
    await revokeAccessTokens(this.collections, grantId);
  }
}

/** The token endpoint's limit per app, as the public service has it. */
const TOKEN_REQUESTS = { limit: 60, seconds: 60 };

class TooManyTokenRequests extends errors.OIDCProviderError {
  constructor(retryAfterSeconds: number) {
    super(429, 'too_many_requests');
    Object.assign(this, {
      error_description: `at most ${TOKEN_REQUESTS.limit} token requests a minute per app: retry in ${retryAfterSeconds} s`,
    });
  }
}

/**
 * Clients: the apps. A client registering itself (RFC 7591) becomes a public app of nobody's.
 * Finding the client is the token endpoint's first step (client authentication): the request is
 * counted against the app's limit there, with the RateLimit headers, before anything else.
 */
class ClientAdapter extends FindsByIdOnly {
  constructor(private readonly collections: Collections) {
    super();
  }

  private async countTokenRequest(clientId: string): Promise<void> {
    const ctx = Provider.ctx;
    if (ctx?.oidc?.route !== 'token') return;
    const state = await countInWindow(this.collections, `token:${clientId}`, TOKEN_REQUESTS);
    ctx.set({
      'ratelimit-limit': String(state.limit),
      'ratelimit-remaining': String(state.remaining),
      'ratelimit-reset': String(state.resetSeconds),
    });
    if (!state.allowed) {
      ctx.set('retry-after', String(state.resetSeconds));
      throw new TooManyTokenRequests(state.resetSeconds);
    }
  }

  async upsert(id: string, payload: Payload): Promise<void> {
    await this.collections.apps.insertOne(appOfRegistration(id, payload));
  }

  async find(id: string): Promise<Payload | undefined> {
    await this.countTokenRequest(id);
    const app = await this.collections.apps.findOne({ clientId: id });
    return app ? clientMetadataOf(app) : undefined;
  }

  async destroy(id: string): Promise<void> {
    await this.collections.apps.deleteOne({ clientId: id });
  }
}

/** oidc-provider's `adapter` option: one adapter per model, over the service's collections. */
export function oauthAdapterFactory(
  collections: Collections,
  /** The MCP door's resource: a token whose audience it is opens that door only. */
  mcpResource: string,
): (model: string) => OAuthAdapter {
  const appOf = (clientId: string) => collections.apps.findOne({ clientId });
  const appKindOf = async (clientId: string) => (await appOf(clientId))?.kind;
  return (model) => {
    if (model === 'AccessToken') return new AccessTokenAdapter(collections, appOf, mcpResource);
    if (model === 'Client') return new ClientAdapter(collections);
    return new RecordAdapter(collections, model, appKindOf);
  };
}
