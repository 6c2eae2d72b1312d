import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { cpuSeconds, HAS_WRK, pinned } from './proc.js';

/**
 * One load run against a URL: wrk when the machine has it (Debian package), else autocannon in its own
 * process. Either way pinned to its own core, and its CPU use reported: autocannon alone saturates a core
 * before a fast Fastify route does on a 2-core machine (docs/performance.md), which caps what it can show.
 */
export interface LoadResult {
  generator: 'wrk' | 'autocannon';
  requestsPerSecond: number;
  meanLatencyMs: number;
  /** 99th percentile latency. */
  p99LatencyMs: number;
  non2xx: number;
  generatorCpuPercent: number | null;
  /**
   * CPU time the server spent per answered request (from /proc, when its pid was given): unlike req/s it
   * does not move with the CPU time the VM's neighbours take, so small changes of the daemon show in it.
   */
  serverCpuMicrosPerRequest: number | null;
}

export interface LoadOptions {
  url: string;
  headers: Record<string, string>;
  connections: number;
  seconds: number;
  cpu?: number;
  /** The server under test, to measure its CPU time per request. */
  serverPid?: number;
}

function run(command: string, args: string[]): Promise<{ stdout: string; cpu: number | null; seconds: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let cpu: number | null = null;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', () => undefined);
    // Sample the generator's own CPU just before it exits.
    const sampler = setInterval(() => {
      if (child.pid) cpu = cpuSeconds(child.pid) ?? cpu;
    }, 250);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(sampler);
      if (code !== 0) reject(new Error(`${command} exited with ${code}: ${stdout}`));
      else resolve({ stdout, cpu, seconds: (Date.now() - started) / 1000 });
    });
  });
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const before = options.serverPid === undefined ? null : cpuSeconds(options.serverPid);
  const result = await runGenerator(options);
  const after = options.serverPid === undefined ? null : cpuSeconds(options.serverPid);
  const answered = result.requestsPerSecond * options.seconds;
  const serverCpuMicrosPerRequest = before === null || after === null || answered === 0 ? null : ((after - before) * 1e6) / answered;
  return { ...result, serverCpuMicrosPerRequest };
}

async function runGenerator(options: LoadOptions): Promise<Omit<LoadResult, 'serverCpuMicrosPerRequest'>> {
  if (HAS_WRK) {
    const headerArgs = Object.entries(options.headers).flatMap(([k, v]) => ['-H', `${k}: ${v}`]);
    const [cmd, args] = pinned(options.cpu, 'wrk', [
      '-t1',
      `-c${options.connections}`,
      `-d${options.seconds}s`,
      '--latency',
      ...headerArgs,
      options.url,
    ]);
    const { stdout, cpu, seconds } = await run(cmd, args);
    const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? 0);
    const latency = /Latency\s+([\d.]+)(us|ms|s)/.exec(stdout);
    const scale = latency?.[2] === 'us' ? 0.001 : latency?.[2] === 's' ? 1000 : 1;
    const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(stdout)?.[1] ?? 0);
    const p99 = /\s99%\s+([\d.]+)(us|ms|s)/.exec(stdout);
    const p99Scale = p99?.[2] === 'us' ? 0.001 : p99?.[2] === 's' ? 1000 : 1;
    return {
      generator: 'wrk',
      requestsPerSecond: rps,
      meanLatencyMs: Number(latency?.[1] ?? 0) * scale,
      p99LatencyMs: Number(p99?.[1] ?? 0) * p99Scale,
      non2xx,
      generatorCpuPercent: cpu === null ? null : Math.round((cpu / seconds) * 100),
    };
  }
  const bin = createRequire(import.meta.url).resolve('autocannon/autocannon.js');
  const headerArgs = Object.entries(options.headers).flatMap(([k, v]) => ['-H', `${k}=${v}`]);
  const [cmd, args] = pinned(options.cpu, process.execPath, [
    bin,
    '-j',
    '-c',
    String(options.connections),
    '-d',
    String(options.seconds),
    ...headerArgs,
    options.url,
  ]);
  const { stdout, cpu, seconds } = await run(cmd, args);
  const report = JSON.parse(stdout) as { requests: { average: number }; latency: { average: number; p99: number }; non2xx: number };
  return {
    generator: 'autocannon',
    requestsPerSecond: report.requests.average,
    meanLatencyMs: report.latency.average,
    p99LatencyMs: report.latency.p99,
    non2xx: report.non2xx,
    generatorCpuPercent: cpu === null ? null : Math.round((cpu / seconds) * 100),
  };
}
