import {
  type GroupChild,
  groupAlive,
  signalGroup,
  spawnGroup,
  stopGroup,
} from '../internal/process-group.js';
import { type ResourceLimits, withResourceLimits } from '../internal/resource-limits.js';

const TAIL = 64 * 1024;

/** A background process the bridge started and tracks. */
export interface Job {
  id: string;
  tool: string;
  pid: number | undefined;
  url?: string;
  startedAt: string;
  status: 'running' | 'exited';
  exitCode: number | null;
}

interface JobState extends Job {
  child: GroupChild;
  stdout: Buffer;
  stderr: Buffer;
}

/**
 * Background jobs: tools marked `background` start a process and return at once; the bridge keeps the
 * job's output tail, lists and stops jobs, and stops every job when it shuts down.
 */
export class JobManager {
  private readonly jobs = new Map<string, JobState>();
  private next = 1;

  /** Starts a job; resolves once the process is running (rejects if it cannot start). */
  async start(
    tool: string,
    program: string,
    argv: readonly string[],
    cwd: string,
    env: Record<string, string>,
    url?: string,
    limits?: ResourceLimits,
  ) {
    const { command, args } = withResourceLimits(program, argv, limits);
    const child = spawnGroup(command, args, { cwd, env });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    child.stdin.end();
    const job: JobState = {
      id: `job-${this.next++}`,
      tool,
      pid: child.pid,
      ...(url === undefined ? {} : { url }),
      startedAt: new Date().toISOString(),
      status: 'running',
      exitCode: null,
      child,
      stdout: Buffer.alloc(0),
      stderr: Buffer.alloc(0),
    };
    const keep = (buffer: Buffer, chunk: Buffer) => {
      const joined = Buffer.concat([buffer, chunk]);
      return joined.length > TAIL ? joined.subarray(joined.length - TAIL) : joined;
    };
    child.stdout.on('data', (chunk: Buffer) => {
      job.stdout = keep(job.stdout, chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      job.stderr = keep(job.stderr, chunk);
    });
    child.once('exit', (code) => {
      job.status = 'exited';
      job.exitCode = code;
    });
    this.jobs.set(job.id, job);
    return this.describe(job);
  }

  list(): Job[] {
    return [...this.jobs.values()].map((job) => this.describe(job));
  }

  /** The last `lines` lines of a job's stdout and stderr. */
  output(id: string, lines = 50): { job: Job; stdout: string; stderr: string } | undefined {
    const job = this.jobs.get(id);
    if (!job) return undefined;
    const tail = (buffer: Buffer) =>
      buffer
        .toString('utf8')
        .split('\n')
        .slice(-lines - 1)
        .join('\n');
    return { job: this.describe(job), stdout: tail(job.stdout), stderr: tail(job.stderr) };
  }

  /** Stops a job's whole process group (SIGTERM, then SIGKILL after the grace period). */
  async stop(id: string, graceMs = 5000): Promise<Job | undefined> {
    const job = this.jobs.get(id);
    if (!job) return undefined;
    if (groupAlive(job.child)) await stopGroup(job.child, { stdinGraceMs: 0, termGraceMs: graceMs });
    job.status = 'exited';
    return this.describe(job);
  }

  /**
   * Stops every job at once (bridge shutdown). The grace is short: the client that closed the bridge
   * SIGTERMs it 2 s after closing its stdin, and the jobs must be gone before.
   */
  async stopAll(graceMs = 300): Promise<void> {
    await Promise.all([...this.jobs.keys()].map((id) => this.stop(id, graceMs)));
  }

  /** Synchronous last resort for process exit. */
  killAll(): void {
    for (const job of this.jobs.values()) signalGroup(job.child, 'SIGKILL');
  }

  private describe(job: JobState): Job {
    const { child: _c, stdout: _o, stderr: _e, ...rest } = job;
    return { ...rest };
  }
}
