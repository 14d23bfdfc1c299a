// mcpkit gateway dashboard: plain JavaScript, no build step. Every value from the server is shown through
// textContent (never parsed as HTML): tool descriptions and arguments come from upstream servers.

const API = '/dashboard/api/';
const MAX_CALLS = 200;
const MAX_LOG = 500;

const $ = (id) => document.getElementById(id);
let tools = [];
let selected = '';

/** An element with a text, attributes and children. */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null) continue;
    if (key === 'text') node.textContent = String(value);
    else if (key === 'className') node.className = value;
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, String(value));
  }
  for (const child of children) if (child !== undefined && child !== null) node.append(child);
  return node;
}

const time = (iso) => new Date(iso).toLocaleTimeString();

async function api(path, body) {
  const response = await fetch(API + path, {
    method: body === undefined ? 'GET' : 'POST',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
  });
  const value = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) throw new Error(value.error ?? `HTTP ${response.status}`);
  return value;
}

function renderFacts(gateway) {
  const parts = [
    `v${gateway.version}`,
    `pid ${gateway.pid}`,
    `${gateway.clients} client${gateway.clients === 1 ? '' : 's'}`,
  ];
  if (gateway.profile) parts.push(`profile ${gateway.profile}`);
  $('facts').textContent = parts.join(' · ');
  $('payloads').textContent = gateway.payloads
    ? '(arguments and results shown, secrets masked)'
    : '(arguments and results hidden: --dashboard-payloads shows them)';
}

function renderUpstreams(upstreams) {
  const body = $('upstreams').tBodies[0];
  body.replaceChildren(
    ...upstreams.map((u) =>
      el(
        'tr',
        { 'data-server': u.name, 'data-state': u.state, className: u.state === 'ready' ? '' : 'down' },
        el('td', { text: u.name }),
        el('td', {}, el('span', { className: 'badge state', 'data-state': u.state, text: u.state })),
        el('td', { text: u.transport }),
        el('td', { className: 'nowrap', text: u.protocolVersion ?? '' }),
        el('td', { text: u.restarts }),
        el('td', { text: u.login }),
        el('td', { className: 'desc', text: sandboxText(u.sandbox) }),
        el('td', { className: 'desc', text: u.lastError ?? '' }),
      ),
    ),
  );
}

/** A stdio server's sandbox: on / off / unavailable (why), and what it was last denied. */
function sandboxText(sandbox) {
  if (!sandbox) return '';
  const denied = sandbox.denials.map((d) => d.target).join(', ');
  return [sandbox.state, sandbox.reason, denied ? `denied: ${denied}` : ''].filter(Boolean).join(' · ');
}

function renderTools(list) {
  tools = list;
  const filter = $('tool-filter').value.trim().toLowerCase();
  const shown = list.filter((t) => !filter || `${t.name} ${t.description}`.toLowerCase().includes(filter));
  $('tools').tBodies[0].replaceChildren(
    ...shown.map((t) => {
      const pin = el('span', {
        className: 'badge',
        'data-pin': t.pin,
        text: t.hidden ? 'changed · hidden' : t.pin,
      });
      const trust =
        t.pin === 'changed'
          ? el('button', {
              className: 'trust',
              type: 'button',
              'data-trust': t.server,
              text: 'trust',
              title: `accept the current definitions of ${t.server}'s tools`,
              onclick: (event) => {
                event.stopPropagation();
                void trustServer(t.server);
              },
            })
          : undefined;
      return el(
        'tr',
        {
          className: `tool${t.name === selected ? ' selected' : ''}`,
          'data-tool': t.name,
          onclick: () => chooseTool(t.name),
        },
        el('td', { text: t.name }),
        el('td', { text: t.server }),
        el('td', {}, pin, trust),
        el('td', { className: 'desc', text: t.hidden ?? t.description }),
      );
    }),
  );
  const select = $('call-tool');
  const current = select.value;
  select.replaceChildren(
    ...list.filter((t) => !t.hidden).map((t) => el('option', { value: t.name, text: t.name })),
  );
  if (list.some((t) => t.name === current)) select.value = current;
  showSchema();
}

function renderProfiles(list) {
  $('no-profiles').hidden = list.length > 0;
  $('profiles').tBodies[0].replaceChildren(
    ...list.map((p) =>
      el(
        'tr',
        { 'data-profile': p.name },
        el('td', { text: p.name }),
        el('td', {}, el('code', { text: p.path })),
        el(
          'td',
          { className: 'desc' },
          el('span', { className: 'count', text: `${p.tools.length}` }),
          el('span', { className: 'tool-names', text: p.tools.join(', ') }),
        ),
        el('td', { className: 'desc', text: p.description }),
      ),
    ),
  );
}

/** A starting point for the arguments: the schema's required properties with empty values. */
function skeleton(schema) {
  const out = {};
  for (const key of schema?.required ?? []) {
    const type = schema.properties?.[key]?.type;
    out[key] =
      type === 'number' || type === 'integer'
        ? 0
        : type === 'boolean'
          ? false
          : type === 'object'
            ? {}
            : type === 'array'
              ? []
              : '';
  }
  return out;
}

function showSchema() {
  const tool = tools.find((t) => t.name === $('call-tool').value);
  $('call-schema').textContent = tool ? JSON.stringify(tool.inputSchema, null, 2) : '';
}

function chooseTool(name) {
  selected = name;
  const tool = tools.find((t) => t.name === name);
  if (!tool || tool.hidden) return;
  $('call-tool').value = name;
  $('call-args').value = JSON.stringify(skeleton(tool.inputSchema), null, 2);
  showSchema();
  $('call-schema-box').open = true;
  for (const row of $('tools').tBodies[0].rows) row.classList.toggle('selected', row.dataset.tool === name);
}

function callRow(call) {
  const row = el(
    'tr',
    {
      'data-call-id': call.id,
      'data-tool': call.name,
      'data-outcome': call.outcome,
      'data-profile': call.profile,
    },
    el('td', { className: 'nowrap', text: time(call.time) }),
    el('td', { text: call.client ?? '' }),
    el('td', { text: call.profile ?? '' }),
    el('td', { text: call.name }),
    el('td', { text: call.server ?? '' }),
    el('td', {}, el('span', { className: 'badge', 'data-outcome': call.outcome, text: call.outcome })),
    el('td', { text: call.durationMs ?? '' }),
  );
  const details = [
    call.error,
    call.args === undefined ? undefined : `arguments ${JSON.stringify(call.args)}`,
    call.result === undefined ? undefined : `result ${JSON.stringify(call.result)}`,
  ].filter(Boolean);
  if (details.length > 0) row.title = details.join('\n');
  return row;
}

function addCall(call) {
  const body = $('calls').tBodies[0];
  const row = callRow(call);
  const existing = body.querySelector(`tr[data-call-id="${call.id}"]`);
  if (existing) existing.replaceWith(row);
  else body.prepend(row);
  while (body.rows.length > MAX_CALLS) body.deleteRow(-1);
}

function addLog(line) {
  const log = $('log');
  const atEnd = log.scrollTop + log.clientHeight >= log.scrollHeight - 4;
  log.append(el('div', { text: `${time(line.time)}  ${line.message}` }));
  while (log.childElementCount > MAX_LOG) log.firstElementChild.remove();
  if (atEnd) log.scrollTop = log.scrollHeight;
}

function renderState(state) {
  renderFacts(state.gateway);
  renderUpstreams(state.upstreams);
  renderTools(state.tools);
  renderProfiles(state.profiles ?? []);
}

async function trustServer(server) {
  try {
    const { changed } = await api('trust', { server });
    addLog({
      time: new Date().toISOString(),
      message: `trusted ${server}'s tools (${changed} changed since pinned)`,
    });
  } catch (error) {
    addLog({ time: new Date().toISOString(), message: `trust ${server}: ${error.message}` });
  }
}

async function submitCall(event) {
  event.preventDefault();
  const out = $('call-result');
  let args;
  try {
    args = JSON.parse($('call-args').value || '{}');
  } catch (error) {
    out.dataset.outcome = 'error';
    out.textContent = `The arguments are not JSON: ${error.message}`;
    return;
  }
  out.dataset.outcome = 'running';
  out.textContent = 'calling…';
  try {
    const { result } = await api('call', { name: $('call-tool').value, arguments: args });
    out.dataset.outcome = result.isError ? 'error' : 'ok';
    const text = (result.content ?? []).filter((c) => c.type === 'text').map((c) => c.text);
    out.textContent =
      text.length > 0 && !result.structuredContent ? text.join('\n') : JSON.stringify(result, null, 2);
  } catch (error) {
    out.dataset.outcome = 'error';
    out.textContent = error.message;
  }
}

function connect() {
  const events = new EventSource(`${API}events`);
  events.addEventListener('open', () => {
    $('live').dataset.live = 'live';
    $('live').textContent = 'live';
  });
  events.addEventListener('error', () => {
    $('live').dataset.live = 'lost';
    $('live').textContent = 'reconnecting…';
  });
  events.addEventListener('state', (event) => renderState(JSON.parse(event.data)));
  events.addEventListener('call', (event) => addCall(JSON.parse(event.data)));
  events.addEventListener('log', (event) => addLog(JSON.parse(event.data)));
}

async function start() {
  $('call-form').addEventListener('submit', submitCall);
  $('call-tool').addEventListener('change', () => chooseTool($('call-tool').value));
  $('tool-filter').addEventListener('input', () => renderTools(tools));
  const state = await api('state');
  renderState(state);
  for (const call of state.calls) addCall(call);
  for (const line of state.log) addLog(line);
  if (state.tools[0] && !state.tools[0].hidden) chooseTool(state.tools[0].name);
  connect();
}

start().catch((error) => {
  $('live').dataset.live = 'lost';
  $('live').textContent = `cannot load: ${error.message}`;
});
