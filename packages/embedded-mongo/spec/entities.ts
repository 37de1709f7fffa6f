/**
 * A test's entity map: the clients, databases, collections and sessions its createEntities
 * describes, plus results saved with saveResultAsEntity. Clients record the command monitoring
 * events their observeEvents asks for, minus the commands the format says to ignore.
 */
import {
  ClientSession,
  type CommandFailedEvent,
  type CommandStartedEvent,
  type CommandSucceededEvent,
  Db,
  type Document,
  MongoClient,
} from 'mongodb';
import type { EntityDescription } from './format.js';
import type { ObservedEvent } from './matcher.js';

const ENTITY_TYPES = new Set(['client', 'database', 'collection', 'session']);

/** Why a file's entities cannot be created here (GridFS buckets, encryption, threads, ...). */
export function unsupportedEntity(descriptions: EntityDescription[] = []): string | undefined {
  const type = descriptions
    .map((description) => Object.keys(description)[0] ?? '')
    .find((t) => !ENTITY_TYPES.has(t));
  return type && `entity type ${type} is not implemented by this runner`;
}

/** Commands whose events the driver redacts and the format ignores (command monitoring spec, "Security"). */
const SENSITIVE_COMMANDS = new Set([
  'authenticate',
  'saslstart',
  'saslcontinue',
  'getnonce',
  'createuser',
  'updateuser',
  'copydbgetnonce',
  'copydbsaslstart',
  'copydb',
]);

/** hello is sensitive only when it carries speculative authentication, which shows as a redacted (empty) body. */
function isSensitive(commandName: string, body: Document | undefined): boolean {
  const name = commandName.toLowerCase();
  if (SENSITIVE_COMMANDS.has(name)) return true;
  return (name === 'hello' || name === 'ismaster') && body !== undefined && Object.keys(body).length === 0;
}

type CommandEvent = CommandStartedEvent | CommandSucceededEvent | CommandFailedEvent;

export class EntityMap {
  private readonly entities = new Map<string, unknown>();
  private readonly events = new Map<string, ObservedEvent[]>();
  private observing = true;

  constructor(private readonly uri: string) {}

  create(descriptions: EntityDescription[]): void {
    for (const description of descriptions) {
      const [type, spec] = Object.entries(description)[0] ?? [];
      if (!type || !spec) throw new Error(`malformed entity ${JSON.stringify(description)}`);
      this.add(spec.id, this.construct(type, spec));
    }
  }

  private construct(type: string, spec: Document): unknown {
    switch (type) {
      case 'client':
        return this.createClient(spec);
      case 'database':
        return this.get(spec.client, MongoClient).db(spec.databaseName, spec.databaseOptions);
      case 'collection':
        return this.get(spec.database, Db).collection(spec.collectionName, spec.collectionOptions);
      case 'session':
        return this.get(spec.client, MongoClient).startSession(spec.sessionOptions);
      default:
        throw new Error(`entity type ${type} is not implemented by this runner`);
    }
  }

  private createClient(spec: Document): MongoClient {
    // uriOptions use the URI's option names, which the driver's options object shares.
    const client = new MongoClient(this.uri, {
      serverSelectionTimeoutMS: 5000,
      ...spec.uriOptions,
      monitorCommands: true,
    });
    const observed: ObservedEvent[] = [];
    this.events.set(spec.id, observed);
    const wanted = new Set<string>(spec.observeEvents ?? []);
    const ignored = new Set<string>([...(spec.ignoreCommandMonitoringEvents ?? []), 'configureFailPoint']);
    const record = (type: ObservedEvent['type']) => (event: CommandEvent) => {
      const body =
        'command' in event ? event.command : 'reply' in event ? (event.reply as Document) : undefined;
      if (!this.observing || !wanted.has(type) || ignored.has(event.commandName)) return;
      if (!spec.observeSensitiveCommands && isSensitive(event.commandName, body)) return;
      const { commandName, databaseName } = event;
      observed.push({
        type,
        commandName,
        databaseName,
        ...('command' in event && { command: event.command }),
        ...('reply' in event && { reply: event.reply as Document }),
      });
    };
    client.on('commandStarted', record('commandStartedEvent'));
    client.on('commandSucceeded', record('commandSucceededEvent'));
    client.on('commandFailed', record('commandFailedEvent'));
    return client;
  }

  add(id: string, value: unknown): void {
    if (this.entities.has(id)) throw new Error(`entity ${id} is already defined`);
    this.entities.set(id, value);
  }

  /** The entity `id`, checked to be of `type` when one is given. */
  get<T>(id: string, type?: abstract new (...args: never[]) => T): T {
    if (!this.entities.has(id)) throw new Error(`no entity ${id}`);
    const entity = this.entities.get(id);
    if (type && !(entity instanceof type)) throw new Error(`entity ${id} is not a ${type.name}`);
    return entity as T;
  }

  eventsOf(clientId: string): ObservedEvent[] {
    const observed = this.events.get(clientId);
    if (!observed) throw new Error(`no client entity ${clientId}`);
    return observed;
  }

  /** Ends event recording, so that closing the clients (endSessions, ...) adds nothing. */
  stopObserving(): void {
    this.observing = false;
  }

  async close(): Promise<void> {
    this.stopObserving();
    const values = [...this.entities.values()];
    for (const session of values.filter((value) => value instanceof ClientSession)) {
      await session.endSession().catch(() => {});
    }
    await Promise.all(values.filter((value) => value instanceof MongoClient).map((client) => client.close()));
  }
}
