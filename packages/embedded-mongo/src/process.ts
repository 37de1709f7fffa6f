/**
 * The engine in a process of its own (cli.ts), so a test can stop (SIGSTOP), resume (SIGCONT) or
 * kill it as it would a real database server. It exits when its stdin closes (the parent ending),
 * and `stop` resumes it first, so a parent never leaves a stopped process behind.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface EngineProcess {
  uri: string;
  child: ChildProcess;
  signal(signal: 'SIGSTOP' | 'SIGCONT' | 'SIGKILL'): void;
  stop(): void;
}

/** `path`: the engine keeps its data there (durable store) instead of in memory only. */
export async function startEngineProcess(options: { path?: string } = {}): Promise<EngineProcess> {
  // From the TypeScript sources (tsx, vitest) the CLI runs through tsx's loader; compiled, as it is.
  const extension = path.extname(fileURLToPath(import.meta.url));
  const cli = fileURLToPath(new URL(`./cli${extension}`, import.meta.url));
  const loader = extension === '.ts' ? ['--import', 'tsx'] : [];
  const where = options.path === undefined ? ['--in-memory'] : ['--path', options.path];
  const args = [...loader, cli, '--port', '0', ...where, '--exit-with-stdin'];
  const child = spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const stop = () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  };
  // Even if the parent fails before it stops the engine: a stopped child would not see its stdin close.
  process.once('exit', stop);
  const uri = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const uri = /^MongoDB URI: (\S+)$/m.exec(out)?.[1];
      if (uri) resolve(uri);
    });
    child.once('exit', (code) => reject(new Error(`the engine process exited (${code})`)));
  });
  return {
    uri,
    child,
    signal: (signal) => {
      child.kill(signal);
    },
    stop,
  };
}
