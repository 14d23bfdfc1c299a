/**
 * What runs first inside a sandbox whose server may reach the network: a TCP listener on the sandbox's own
 * loopback (the only interface its network namespace has) that carries each connection to the host's proxy
 * over the Unix socket bound in, then the server itself, with stdio passed straight through. It ignores
 * SIGINT/SIGTERM (the group's signal reaches the server, whose exit it mirrors), so a server's graceful stop
 * is not cut short by the sandbox ending under it. Run as `node -e NET_BRIDGE_SOURCE marker port socket cmd…`.
 */
export const NET_BRIDGE_SOURCE = `
const net = require('node:net');
const { spawn } = require('node:child_process');
const [port, socketPath, command, ...args] = process.argv.slice(2);
process.on('SIGTERM', () => undefined);
process.on('SIGINT', () => undefined);
const server = net.createServer((client) => {
  const upstream = net.createConnection(socketPath);
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
  client.pipe(upstream);
  upstream.pipe(client);
});
server.listen(Number(port), '127.0.0.1', () => {
  const child = spawn(command, args, { stdio: 'inherit' });
  child.on('error', (error) => {
    process.stderr.write(String(error && error.message) + '\\n');
    process.exit(127);
  });
  child.on('exit', (code, signal) => process.exit(code === null ? 128 + (require('node:os').constants.signals[signal] || 0) : code));
});
`;

/** Shown in `ps` inside the sandbox. */
export const NET_BRIDGE_MARKER = 'mcpkit-sandbox-net';
