/**
 * Configuration from environment variables, validated once at start. Each variable is declared
 * once below with its description, which `--help` prints.
 */
import { z } from 'zod';

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const port = z.coerce.number().int().min(0).max(65535);
const bool = z.enum(['true', 'false']).transform((v) => v === 'true');
const list = z.string().transform((v) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);

interface Variable<T extends z.ZodType> {
  description: string;
  expects: string;
  schema: T;
  default?: string;
}

function variable<T extends z.ZodType>(v: Variable<T>): Variable<T> {
  return v;
}

export const variables = {
  PORT: variable({
    description: 'HTTP port',
    expects: 'an integer from 0 to 65535',
    schema: port,
    default: '4000',
  }),
  HOST: variable({
    description: 'interface to listen on',
    expects: 'a host name or address',
    schema: z.string().min(1),
    default: '127.0.0.1',
  }),
  MONGODB_URI: variable({
    description: 'MongoDB connection string; unset starts the embedded in-memory engine (not for production)',
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
  EMBEDDED_MONGO_PORT: variable({
    description:
      'port of the embedded engine when MONGODB_URI is unset (0: any free port); other processes can share it through MONGODB_URI',
    expects: 'an integer from 0 to 65535',
    schema: port,
    default: '0',
  }),
  SEED_DEMO: variable({
    description: 'load the demo dataset at start (default: true on the embedded engine, false otherwise)',
    expects: 'true or false',
    schema: bool.optional(),
  }),
  LOG_LEVEL: variable({
    description: 'pino log level',
    expects: logLevels.join(', '),
    schema: z.enum(logLevels),
    default: 'info',
  }),
  SHUTDOWN_GRACE_MS: variable({
    description: 'how long graceful shutdown waits for in-flight requests',
    expects: 'a whole number of milliseconds',
    schema: z.coerce.number().int().min(0),
    default: '10000',
  }),
  CORS_ORIGINS: variable({
    description: 'comma-separated origins allowed to call /graphql from a browser (none by default)',
    expects: 'a comma-separated list of origins such as https://app.example.com',
    schema: list.pipe(z.array(z.url())),
    default: '',
  }),
  RATE_LIMIT_GENERAL: variable({
    description: 'requests per window per API key or token (compat.md: 60)',
    expects: 'a positive whole number',
    schema: z.coerce.number().int().min(1),
    default: '60',
  }),
  RATE_LIMIT_HEAVY: variable({
    description:
      'transcript and summary requests per window per key or token, in their own bucket (compat.md: 30)',
    expects: 'a positive whole number',
    schema: z.coerce.number().int().min(1),
    default: '30',
  }),
  RATE_LIMIT_WINDOW_SECONDS: variable({
    description: 'length of the rate-limit window',
    expects: 'a positive whole number of seconds',
    schema: z.coerce.number().int().min(1),
    default: '60',
  }),
} as const;

type Variables = typeof variables;
export type Config = { [K in keyof Variables]: z.output<Variables[K]['schema']> };

export class ConfigError extends Error {}

/** Reads and validates the configuration; throws a ConfigError naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const config: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(variables) as [string, Variable<z.ZodType>][]) {
    const raw = env[name] === undefined || env[name] === '' ? v.default : env[name];
    const parsed = v.schema.safeParse(raw);
    if (parsed.success) config[name] = parsed.data;
    else problems.push(`${name} must be ${v.expects} (got ${JSON.stringify(raw)})`);
  }
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n  ${problems.join('\n  ')}`);
  return config as Config;
}

export function helpText(): string {
  const rows = Object.entries(variables).map(([name, v]) => {
    const def =
      'default' in v && v.default !== undefined
        ? ` [default: ${v.default === '' ? 'empty' : v.default}]`
        : '';
    return `  ${name.padEnd(22)} ${v.description}${def}`;
  });
  return `Usage: npm start [-- --help]\n\nEnvironment variables:\n${rows.join('\n')}\n`;
}
