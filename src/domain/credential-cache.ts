/**
 * Recognised credentials, remembered for a moment: under load a key costs its lookups (credential,
 * user) once per `ttlMs` instead of on every request. A revoked key or a deactivated user is
 * therefore refused within `ttlMs` on every process sharing the database. Refusals are never
 * remembered, so a key made a moment ago works at once; concurrent first requests with one key
 * share a single lookup. Organisations (settings, not access) are kept for `organisationTtlMs`.
 * Each recognition is noted as the credential's last use (credential-usage.ts).
 */
import { LRUCache } from 'lru-cache';
import { ObjectId } from 'mongodb';
import type { Collections } from '../db/collections.js';
import type { OrganisationDoc } from '../db/documents.js';
import type { CredentialUsage } from './credential-usage.js';
import {
  authenticate,
  type Caller,
  type CredentialPolicy,
  hashSecret,
  type OrganisationOf,
  type PresentedCredential,
} from './viewer.js';

export interface CredentialCacheOptions {
  /** How long a recognised credential is trusted without asking the database; 0: always ask. */
  ttlMs: number;
  /** Credentials remembered at most (least recently used forgotten first). */
  max?: number;
  /** How long an organisation is reused (default `ttlMs`). */
  organisationTtlMs?: number;
  /** Told of every credential recognised (its last use). */
  usage?: CredentialUsage;
}

export class CredentialCache {
  private readonly cache: LRUCache<string, Caller, PresentedCredential> | undefined;
  private readonly organisationOf: OrganisationOf | undefined;
  private readonly usage: CredentialUsage | undefined;

  constructor(
    private readonly collections: Collections,
    private readonly policy: CredentialPolicy,
    options: CredentialCacheOptions,
  ) {
    this.cache =
      options.ttlMs > 0
        ? new LRUCache<string, Caller, PresentedCredential>({
            max: options.max ?? 10_000,
            ttl: options.ttlMs,
            // A refusal or an outage rejects the fetch and leaves nothing behind.
            fetchMethod: (_key, _stale, { context }) =>
              authenticate(this.collections, context, this.policy, this.organisationOf),
          })
        : undefined;
    this.usage = options.usage;
    const organisationTtlMs = options.organisationTtlMs ?? options.ttlMs;
    if (organisationTtlMs > 0) {
      const organisations = new LRUCache<string, OrganisationDoc>({
        max: 10_000,
        ttl: organisationTtlMs,
        fetchMethod: (id) =>
          collections.organisations.findOne({ _id: new ObjectId(id) }).then((org) => org ?? undefined),
      });
      this.organisationOf = async (id) => (await organisations.fetch(id.toHexString())) ?? null;
    }
  }

  /** Who presented the credential; UNAUTHENTICATED (DomainError) when it is not recognised. */
  async recognise(presented: PresentedCredential): Promise<Caller> {
    const caller = this.cache
      ? // Keyed by the secret's hash, as it is stored: the plain secret is not kept, even in memory.
        (await this.cache.fetch(`${presented.kind}:${hashSecret(presented.secret)}`, { context: presented }))!
      : await authenticate(this.collections, presented, this.policy, this.organisationOf);
    if ('viewer' in caller) this.usage?.note(caller.viewer.credentialId);
    return caller;
  }
}
