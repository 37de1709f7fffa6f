/**
 * Configuration from environment variables, validated once at start. Each variable is declared
 * once below with its description, which `--help` prints.
 */
import { BlockList, isIP } from 'node:net';
import { z } from 'zod';
import type { RateLimitPolicy } from './domain/rate-limits.js';
import { redactCredentials } from './redact.js';

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const port = z.coerce.number().int().min(0).max(65535);
const bool = z.enum(['true', 'false']).transform((v) => v === 'true');
const list = z.string().transform((v) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

const millis = z.coerce.number().int().min(1);
const hex256 = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/)
  .transform((v) => v.toLowerCase());

/** `a.b.c.d/n` or `x:y::/n`; a bare address means the address alone (/32 or /128). */
export function parseCidr(
  value: string,
): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | null {
  const [address = '', prefixText, extra] = value.split('/');
  const version = isIP(address);
  if (version === 0 || extra !== undefined) return null;
  const max = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (!/^\d{1,3}$/.test(prefixText ?? String(max)) || prefix > max) return null;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  // BlockList validates what isIP accepts; keep the check here so a bad entry fails at start.
  new BlockList().addSubnet(address, prefix, family);
  return { address, prefix, family };
}

interface Variable<T extends z.ZodType> {
  description: string;
  expects: string;
  schema: T;
  default?: string;
  /** What the default is, in words, where it is not a value (`the address it listens on`). */
  shownDefault?: string;
}

function variable<T extends z.ZodType>(v: Variable<T>): Variable<T> {
  return v;
}

/** Every variable, by the concern it sets; `--help` and the reference list them so. */
export const settings = {
  server: {
    title: 'The HTTP server',
    variables: {
      PORT: variable({
        description: 'HTTP port',
        expects: 'an integer from 0 to 65535',
        schema: port,
        default: '4000',
      }),
      HOST: variable({
        description: 'interface to listen on (`0.0.0.0` in a container)',
        expects: 'a host name or address',
        schema: z.string().min(1),
        default: '127.0.0.1',
      }),
      PUBLIC_URL: variable({
        description:
          "the service's base URL as its users reach it (behind a proxy, `https://meetings.example.com`): download links point there",
        shownDefault: 'the address it listens on',
        expects: 'an absolute http or https URL without a path, query or trailing slash',
        schema: z
          .string()
          .regex(/^https?:\/\/[^/?#\s]+$/)
          .optional(),
      }),
      CORS_ORIGINS: variable({
        description: 'comma-separated browser origins allowed to call `/graphql` and `/mcp`',
        expects: 'a comma-separated list of origins such as https://app.example.com',
        schema: list.pipe(z.array(z.url())),
        default: '',
      }),
      SEND_TIMEOUT_MS: variable({
        description:
          'a connection idle this long, or an answer its client takes none of for this long, is closed',
        expects: 'a positive whole number of milliseconds',
        schema: millis,
        default: '30000',
      }),
      SHUTDOWN_GRACE_MS: variable({
        description: 'how long SIGTERM waits for in-flight requests and deliveries',
        expects: 'a whole number of milliseconds',
        schema: z.coerce.number().int().min(0),
        default: '10000',
      }),
      LOG_LEVEL: variable({
        description: 'pino level (`silent` to mute)',
        expects: logLevels.join(', '),
        schema: z.enum(logLevels),
        default: 'info',
      }),
    },
  },
  database: {
    title: 'The database',
    variables: {
      MONGODB_URI: variable({
        description:
          'MongoDB connection string; unset starts the embedded engine (development, demos and tests: production needs a real MongoDB)',
        expects: 'a mongodb:// or mongodb+srv:// URI',
        schema: z
          .string()
          .regex(/^mongodb(\+srv)?:\/\/.+/)
          .optional(),
      }),
      MONGODB_DB: variable({
        description: 'database name',
        expects: 'a MongoDB database name',
        schema: z.string().regex(/^[^/\\. "$]{1,63}$/),
        default: 'meetings',
      }),
      MONGODB_TIMEOUT_MS: variable({
        description:
          'bound of each step of a database operation (server selection, connect, pool wait, socket read); a hung or absent database fails a request within about twice this',
        expects: 'a positive whole number of milliseconds',
        schema: millis,
        default: '2000',
      }),
      MONGODB_COMMAND_METRICS: variable({
        description:
          "count the driver's commands in `mongodb_commands_total`. Off by default: command monitoring makes the driver decode every reply whole once more (a page of ten long transcripts: ~55 ms of CPU instead of ~35); the tests, and the bench on a twin of the service it measures, turn it on to count round trips",
        expects: 'true or false',
        schema: bool,
        default: 'false',
      }),
    },
  },
  embeddedEngine: {
    title: 'The embedded engine (without MONGODB_URI)',
    variables: {
      EMBEDDED_MONGO_PATH: variable({
        description:
          'directory where the embedded engine keeps its data (an LMDB store; created if missing; one process at a time). `:memory:` keeps it in memory, lost on exit: the tests and the bench run so',
        expects: "a directory path, or ':memory:'",
        // Undefined means in memory: the engine's own default.
        schema: z
          .string()
          .min(1)
          .transform((v) => (v === ':memory:' ? undefined : v)),
        default: './data',
      }),
      EMBEDDED_MONGO_PORT: variable({
        description:
          "the embedded engine's port (`0`: any free port); fix it so other processes can share the engine through `MONGODB_URI`",
        expects: 'an integer from 0 to 65535',
        schema: port,
        default: '0',
      }),
      EMBEDDED_MONGO_CACHE_MB: variable({
        description:
          "megabytes of documents (as BSON) the embedded engine keeps decoded in memory; the others are read from its store when asked for, so memory stays bounded whatever the data's size",
        expects: 'a whole number of megabytes, 0 or more',
        schema: z.coerce.number().int().min(0),
        default: '64',
      }),
      EMBEDDED_MONGO_THREAD: variable({
        description:
          "where the embedded engine runs: `worker`, a thread of its own, so a long command keeps that thread busy while the server goes on answering (and the engine gets the `MONGODB_TIMEOUT_MS` bounds like any database); `inline`, on the server's event loop (starts faster: the suite's in-process apps use it)",
        expects: 'worker or inline',
        schema: z.enum(['worker', 'inline']),
        default: 'worker',
      }),
      SEED_DEMO: variable({
        description: 'load the demo dataset at start (`true`: every start, over what is there)',
        shownDefault: 'on the embedded engine: into an empty database',
        expects: 'true or false',
        schema: bool.optional(),
      }),
    },
  },
  requests: {
    title: 'What a request may ask',
    variables: {
      GRAPHQL_TRUSTED_DOCUMENTS: variable({
        description:
          'a manifest of the frontends\' operations, `{"<sha256 of the document>": "<document>"}` (what graphql-codegen\'s client preset writes as persisted-documents.json): each may then be sent by id, as `extensions.persistedQuery.sha256Hash` (Apollo\'s format). Checked at start: every id is its document\'s SHA-256 and every document is valid',
        expects: 'the path of a JSON file',
        schema: z.string().min(1).optional(),
      }),
      GRAPHQL_TRUSTED_ONLY: variable({
        description:
          "accept on `/graphql` only the operations of GRAPHQL_TRUSTED_DOCUMENTS, sent by id (production: no arbitrary query, GraphiQL's included; leave it off in development). The REST and MCP doors run their own documents and are not affected",
        expects: 'true or false',
        schema: bool,
        default: 'false',
      }),
      GRAPHQL_MAX_BODY_BYTES: variable({
        description:
          'largest `/graphql` body, checked before reading and authentication (413); a whole recording sent to `ingestRecording` fits (one with a 2,000-line transcript is about 0.5 MB)',
        expects: 'a whole number of bytes from 1024',
        schema: z.coerce.number().int().min(1024),
        default: String(1024 * 1024),
      }),
      GRAPHQL_MAX_UPLOAD_MB: variable({
        description:
          "largest GraphQL multipart request of the ingestion service (a recording's media sent to `ingestRecording`; the file is held in memory while it is stored, so larger ones go through `npm run ingest -- --media`, which streams); anyone else gets `GRAPHQL_MAX_BODY_BYTES`, decided from the headers before the body is read",
        expects: 'a whole number of megabytes from 1',
        schema: z.coerce.number().int().min(1),
        default: '512',
      }),
      RATE_LIMIT_GENERAL: variable({
        description: 'requests per window per API key or token',
        expects: 'a positive whole number',
        schema: z.coerce.number().int().min(1),
        default: '60',
      }),
      RATE_LIMIT_HEAVY: variable({
        description: 'transcript and summary requests per window per API key or token, in their own bucket',
        expects: 'a positive whole number',
        schema: z.coerce.number().int().min(1),
        default: '30',
      }),
      RATE_LIMIT_DOWNLOAD: variable({
        description:
          'media download requests per window per API key or token, in their own bucket (their status reads count as general requests)',
        expects: 'a positive whole number',
        schema: z.coerce.number().int().min(1),
        default: '30',
      }),
      RATE_LIMIT_WINDOW_SECONDS: variable({
        description: 'the rate-limit window',
        expects: 'a positive whole number of seconds',
        schema: z.coerce.number().int().min(1),
        default: '60',
      }),
      AUTH_FAILURES_PER_MINUTE: variable({
        description:
          'refused keys one client address may send a minute; then 429 until the minute has passed',
        expects: 'a positive whole number',
        schema: z.coerce.number().int().min(1),
        default: '30',
      }),
    },
  },
  admission: {
    title: 'Load shedding',
    variables: {
      ADMISSION_HEAVY_PER_CREDENTIAL: variable({
        description: 'large requests (about 1 MB of content or more) one key may run at once; more get 429',
        expects: 'a positive whole number',
        schema: z.coerce.number().int().min(1),
        default: '2',
      }),
      ADMISSION_BUDGET_MB: variable({
        description:
          'estimated content (MB of JSON) the process produces at once; more gets 503. One key may hold at most half of it (always one request); more gets 429',
        expects: 'a positive whole number of megabytes',
        schema: z.coerce.number().int().min(1),
        default: '64',
      }),
      ADMISSION_MAX_LOOP_DELAY_MS: variable({
        description:
          'event-loop delay from which requests for content get 503 `OVERLOADED` (`Retry-After: 1`) while other content is in flight; a database timeout met meanwhile, with the database still reachable, is answered so too rather than as an outage',
        expects: 'a positive whole number of milliseconds',
        schema: millis,
        // Half the database timeout's default: a loop this far behind is heading for the driver's
        // own timeouts. Lower sheds a steady load the process keeps up with: at 250 ms, 10 clients
        // paging transcripts through GraphQL had half their pages refused (bench, graphql scenario).
        default: '1000',
      }),
    },
  },
  caches: {
    title: 'Caches',
    variables: {
      CREDENTIAL_CACHE_MS: variable({
        description:
          'how long a recognised key or token is reused without asking the database; a revoked key or deactivated user is refused within it by every process (`0`: ask every time)',
        expects: 'a whole number of milliseconds, 0 or more',
        schema: z.coerce.number().int().min(0),
        default: '1000',
      }),
      LAST_USED_WRITE_MS: variable({
        description:
          'how often a process writes when the keys and tokens it recognised were last used (one bulk write for all of them; `lastUsedAt` is at most this late)',
        expects: 'a positive whole number of milliseconds',
        schema: millis,
        default: '5000',
      }),
      DIRECTORY_CACHE_MS: variable({
        description:
          'how long the users, teams and meeting types pages show (names, emails) are reused without asking the database; a renamed team shows within it (`0`: read them for every request)',
        expects: 'a whole number of milliseconds, 0 or more',
        schema: z.coerce.number().int().min(0),
        default: '30000',
      }),
      CONTENT_CACHE_MB: variable({
        description:
          'content (transcripts, summaries…) kept in the process as its serialised bytes, by version: a page asks the database only which versions are current and reads the bytes of the others (`0`: read them for every request); as much again holds the shapes GraphQL selections asked of it, so /graphql answers them from bytes too',
        expects: 'a whole number of megabytes, 0 or more',
        schema: z.coerce.number().int().min(0),
        default: '64',
      }),
    },
  },
  signIn: {
    title: 'Signing people in (connected apps)',
    variables: {
      OIDC_ISSUER: variable({
        description:
          "the organisation's OpenID Connect identity provider, where people sign in to authorize a connected app (matched to an active user by verified email); register `<PUBLIC_URL>/external/v1/oauth2/callback` there as the redirect URI. Unset: the demo sign-in while the demo data is loaded, otherwise nobody signs in",
        expects: 'an absolute https URL (http only for a provider on this machine)',
        schema: z.string().url().optional(),
      }),
      OIDC_CLIENT_ID: variable({
        description: "the service's client id at that identity provider",
        expects: 'the client id',
        schema: z.string().min(1).optional(),
      }),
      OIDC_CLIENT_SECRET: variable({
        description: "the service's client secret at that identity provider",
        expects: 'the client secret',
        schema: z.string().min(1).optional(),
      }),
    },
  },
  ingestion: {
    title: 'Ingestion and live updates',
    variables: {
      INGEST_TOKEN_SHA256: variable({
        description:
          'hex SHA-256 of the service token allowed to call `ingestRecording` (sent as `Authorization: Bearer`; unset: nobody may)',
        expects: '64 hexadecimal characters (the first field of `printf %s "$TOKEN" | sha256sum`)',
        schema: hex256.optional(),
      }),
      INGEST_CACHE_MS: variable({
        description:
          "how long ingestion reuses the recorder, organisation, meeting type and teams a recording names, and its webhooks' owners, without asking the database; a change to them shows within it (`0`: read them for every recording)",
        expects: 'a whole number of milliseconds, 0 or more',
        schema: z.coerce.number().int().min(0),
        default: '1000',
      }),
      SUBSCRIPTION_POLL_MS: variable({
        description: 'how often live subscriptions look for newly ready meetings (from any process)',
        expects: 'a positive whole number of milliseconds',
        schema: millis,
        default: '500',
      }),
    },
  },
  delivery: {
    title: 'Webhook and content deliveries',
    variables: {
      DELIVERY_WORKER: variable({
        description: 'run the delivery worker inside the server (`npm run worker` runs it alone)',
        expects: 'true or false',
        schema: bool,
        default: 'true',
      }),
      DELIVERY_WORKER_THREAD: variable({
        description:
          "where the server's delivery worker runs: `worker`, a thread of its own, so its claims, bodies and sends use another core than requests; `inline`, on the server's event loop (starts faster: the suite's in-process apps use it)",
        expects: 'worker or inline',
        schema: z.enum(['worker', 'inline']),
        default: 'worker',
      }),
      WORKER_PORT: variable({
        description: 'where `npm run worker` (the worker alone) serves `/healthz`, `/readyz` and `/metrics`',
        expects: 'an integer from 0 to 65535',
        schema: port,
        default: '4001',
      }),
      DELIVERY_CONCURRENCY: variable({
        description: 'deliveries one worker sends at once',
        expects: 'a whole number from 1 to 256',
        schema: z.coerce.number().int().min(1).max(256),
        default: '8',
      }),
      DELIVERY_POLL_MS: variable({
        description: 'how often an idle worker looks for due work',
        expects: 'a positive whole number of milliseconds',
        schema: millis,
        default: '1000',
      }),
      DELIVERY_TIMEOUT_MS: variable({
        description: 'total time of one attempt',
        expects: 'a positive whole number of milliseconds',
        schema: millis,
        default: '15000',
      }),
      DELIVERY_CONNECT_TIMEOUT_MS: variable({
        description: 'connect time of one attempt',
        expects: 'a positive whole number of milliseconds',
        schema: millis,
        default: '5000',
      }),
      DELIVERY_LEASE_MS: variable({
        description:
          "how long a claimed delivery is held; a dead worker's work is retaken after it (must exceed the timeout)",
        expects: 'a positive whole number of milliseconds',
        schema: millis,
        default: '60000',
      }),
      CHANGE_RETENTION_DAYS: variable({
        description:
          "how long the change feed (`meetingChanges`) keeps changes, deleted recordings' included; a client whose cursor is older must resync. Workers trim the feed",
        expects: 'a whole number of days from 1 to 3650',
        schema: z.coerce.number().int().min(1).max(3650),
        default: '30',
      }),
      EGRESS_ALLOW_CIDRS: variable({
        description:
          'CIDRs outgoing requests may reach although private or loopback (tests use `127.0.0.1/32`)',
        expects: 'a comma-separated list of CIDRs such as 127.0.0.1/32,::1/128',
        schema: list.pipe(
          z.array(z.string().refine((v) => parseCidr(v) !== null, { message: 'not a CIDR' })),
        ),
        default: '',
      }),
    },
  },
} as const;

type Settings = typeof settings;
/** A concern of the configuration: `server`, `database`, `delivery`... */
export type Group = keyof Settings;
type VariablesOf<G extends Group> = Settings[G]['variables'];
/** One group's settings (distributed over a union of groups, then joined by Config). */
type ConfigOf<G extends Group> = G extends Group
  ? { [K in keyof VariablesOf<G>]: VariablesOf<G>[K] extends Variable<infer T> ? z.output<T> : never }
  : never;
type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void
  ? I
  : never;
/** The settings of `G` (every group by default), by their variables' names. */
export type Config<G extends Group = Group> = UnionToIntersection<ConfigOf<G>>;

const groups = Object.keys(settings) as Group[];

/** Every variable and its declaration, by name. */
export const variables: Record<string, Variable<z.ZodType>> = Object.assign(
  {},
  ...groups.map((group) => settings[group].variables),
);

export class ConfigError extends Error {}

/**
 * Reads and validates the settings of `only` (every group by default: the service and the
 * worker; a tool on the database reads `['database']`, and is not stopped by a bad PORT) from
 * `env` (the process's environment by default); throws a ConfigError naming every bad variable.
 */
export function loadConfig<G extends Group = Group>(only: readonly G[], env?: NodeJS.ProcessEnv): Config<G>;
export function loadConfig(env?: NodeJS.ProcessEnv): Config;
export function loadConfig<G extends Group>(
  first?: readonly G[] | NodeJS.ProcessEnv,
  second?: NodeJS.ProcessEnv,
): Config<G> {
  const only = Array.isArray(first) ? (first as readonly G[]) : (groups as G[]);
  const env = (Array.isArray(first) ? second : (first as NodeJS.ProcessEnv | undefined)) ?? process.env;
  const problems: string[] = [];
  const config: Record<string, unknown> = {};
  for (const group of only)
    for (const [name, v] of Object.entries(settings[group].variables) as [string, Variable<z.ZodType>][]) {
      const raw = env[name] === undefined || env[name] === '' ? v.default : env[name];
      const parsed = v.schema.safeParse(raw);
      if (parsed.success) config[name] = parsed.data;
      // The value is echoed so the operator sees the typo, but never a password (MONGODB_URI).
      else
        problems.push(`${name} must be ${v.expects} (got ${redactCredentials(String(JSON.stringify(raw)))})`);
    }
  const oidc = ['OIDC_ISSUER', 'OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET'].filter((name) => name in config);
  const oidcSet = oidc.filter((name) => config[name] !== undefined);
  if (oidcSet.length > 0 && oidcSet.length < oidc.length)
    problems.push(
      `OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET go together (set: ${oidcSet.join(', ')})`,
    );
  if (config.GRAPHQL_TRUSTED_ONLY === true && config.GRAPHQL_TRUSTED_DOCUMENTS === undefined)
    problems.push(
      'GRAPHQL_TRUSTED_ONLY needs GRAPHQL_TRUSTED_DOCUMENTS: the manifest of the operations to accept',
    );
  const { DELIVERY_LEASE_MS: lease, DELIVERY_TIMEOUT_MS: timeout } = config;
  if (problems.length === 0 && typeof lease === 'number' && typeof timeout === 'number' && lease <= timeout)
    problems.push(`DELIVERY_LEASE_MS must exceed DELIVERY_TIMEOUT_MS (got ${lease} and ${timeout})`);
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  return config as Config<G>;
}

/** The rate-limit buckets and window the configuration sets. */
export function rateLimitPolicyOf(config: Config): RateLimitPolicy {
  return {
    limits: {
      general: config.RATE_LIMIT_GENERAL,
      heavy: config.RATE_LIMIT_HEAVY,
      download: config.RATE_LIMIT_DOWNLOAD,
    },
    windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
  };
}

/**
 * Tracing's variables: read by the OpenTelemetry SDK itself (src/telemetry.ts gets from
 * loadTracing whether an endpoint is set, and the protocol), so they are listed here for `--help`
 * and the reference, not validated.
 */
export const tracingVariables: Record<string, string> = {
  OTEL_EXPORTER_OTLP_ENDPOINT: 'OTLP/HTTP collector; tracing is off unless it (or the next) is set',
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'the traces URL itself, instead of the endpoint + `/v1/traces`',
  OTEL_EXPORTER_OTLP_PROTOCOL: '`http/protobuf` (the default) or `http/json`; gRPC is not offered',
  OTEL_EXPORTER_OTLP_HEADERS: 'headers sent to the collector (`key=value,...`, e.g. its token)',
  OTEL_SERVICE_NAME:
    'the service name of the spans (default `meetings-gateway`; the standalone worker `meetings-gateway-worker`)',
  OTEL_RESOURCE_ATTRIBUTES: 'more resource attributes (`key=value,...`)',
  OTEL_TRACES_SAMPLER: 'the sampler (`parentbased_always_on` by default), with `OTEL_TRACES_SAMPLER_ARG`',
  'OTEL_BSP_*': 'the batch span processor: queue size, batch size, delay, export timeout',
  OTEL_SDK_DISABLED: '`true` turns tracing off although an endpoint is set',
};

export interface TracingConfig {
  /** An OTLP traces endpoint is set and the SDK is not disabled. */
  enabled: boolean;
  /** `http/json`, or `http/protobuf` (the default): the exporter to load. */
  protocol: 'http/json' | 'http/protobuf';
}

/** What src/telemetry.ts needs to know of tracing's variables before it starts the SDK. */
export function loadTracing(env: NodeJS.ProcessEnv = process.env): TracingConfig {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  const disabled = env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true';
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? '').trim();
  return {
    enabled: Boolean(endpoint) && !disabled,
    protocol: protocol === 'http/json' ? 'http/json' : 'http/protobuf',
  };
}

/** The default as a person reads it; undefined where there is none to show. */
function defaultOf(v: Variable<z.ZodType>): string | undefined {
  if (v.shownDefault !== undefined) return v.shownDefault;
  if (v.default === undefined) return undefined;
  return v.default === '' ? 'empty' : v.default;
}

/** Each group's title and its variables' [name, declaration]. */
const byGroup = () =>
  groups.map((group) => ({
    title: settings[group].title,
    rows: Object.entries(settings[group].variables) as [string, Variable<z.ZodType>][],
  }));

export function helpText(): string {
  const line = (name: string, text: string) => `  ${name.padEnd(34)} ${text.replaceAll('`', '')}`;
  const sections = byGroup().map(({ title, rows }) => {
    const lines = rows.map(([name, v]) => {
      const shown = defaultOf(v);
      return line(name, `${v.description}${shown === undefined ? '' : ` [default: ${shown}]`}`);
    });
    return `${title}:\n${lines.join('\n')}`;
  });
  const tracing = Object.entries(tracingVariables).map(([name, text]) => line(name, text));
  return `Usage: npm start [-- --help]\n\nEnvironment variables.\n\n${sections.join('\n\n')}\n\nTracing (OpenTelemetry's own variables):\n${tracing.join('\n')}\n`;
}

/**
 * The configuration reference in Markdown, as docs/operators/configuration.md shows it between its
 * `<!-- configuration -->` markers (`npm run docs` writes it; a test fails when it is stale).
 */
export function configurationReference(): string {
  const cell = (text: string) => text.replaceAll('|', '\\|');
  const sections = byGroup().flatMap(({ title, rows }) => [
    `### ${title}`,
    '',
    '| variable | default | meaning |',
    '|---|---|---|',
    ...rows.map(([name, v]) => {
      const shown = defaultOf(v);
      const value = v.default !== undefined && v.default !== '' && v.shownDefault === undefined;
      return `| \`${name}\` | ${shown === undefined ? 'unset' : value ? `\`${shown}\`` : shown} | ${cell(v.description)} |`;
    }),
    '',
  ]);
  const tracing = Object.entries(tracingVariables).map(([name, text]) => `| \`${name}\` | ${cell(text)} |`);
  return [
    ...sections,
    '### Tracing',
    '',
    "OpenTelemetry's own variables, read by its SDK (see [observability](observability.md)):",
    '',
    '| variable | meaning |',
    '|---|---|',
    ...tracing,
  ].join('\n');
}
