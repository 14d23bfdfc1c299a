import { Runtime } from './dist/client/index.js';

const everything = {
  command: process.execPath,
  args: ['node_modules/@modelcontextprotocol/server-everything/dist/index.js', 'stdio'],
};
const t0 = performance.now();
const rt = await Runtime.create({
  servers: [
    { name: 'ev', entry: everything },
    {
      name: 'mem',
      entry: {
        command: process.execPath,
        args: ['node_modules/@modelcontextprotocol/server-memory/dist/index.js'],
      },
    },
  ],
});
console.log('started', (performance.now() - t0).toFixed(0), 'ms');
rt.on('stderr', (e) => console.log('stderr', e.server, e.line.slice(0, 80)));
for (const s of rt.servers())
  console.log(s.id, s.status, s.protocolVersion, s.serverInfo?.name, Object.keys(s.capabilities ?? {}));
const tools = await rt.server('ev').listTools();
console.log(tools.map((t) => t.name).join(' '));
const reg = await rt.tools();
console.log(
  reg.size,
  reg
    .list()
    .slice(0, 3)
    .map((t) => t.name),
);
const r = await rt.server('ev').callTool('echo', { message: 'hi' });
console.log(JSON.stringify(r));
const p = [];
const r2 = await rt
  .server('ev')
  .callTool('trigger-long-running-operation', { duration: 1, steps: 5 }, { onProgress: (u) => p.push(u) });
console.log(p.length, JSON.stringify(r2).slice(0, 100));
await rt.close();
console.log(rt.servers().map((s) => s.status));
