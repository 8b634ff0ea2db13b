// The test host page's script, bundled for the page by esbuild (lib/host.mjs):
// the official host side of MCP Apps (AppBridge and PostMessageTransport from
// @modelcontextprotocol/ext-apps/app-bridge) mounting one app in a sandboxed
// iframe, as a chat client does. The app's tools/call requests go to
// window.ttmRelay, a function the node test exposes (puppeteer), which
// relays them to our server through the MCP SDK client and counts them.
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

/** The CSP a host enforces for a resource whose `_meta.ui.csp` names no domain: nothing from anywhere. */
export const EMPTY_CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
  + "img-src data:; font-src data:; media-src data:; connect-src 'none'; frame-src 'none'; "
  + "object-src 'none'; base-uri 'none'; form-action 'none'";

/** `html` with a CSP meta element first in its head (or first at all). */
function withCsp(html, csp) {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${csp}">`;
  const head = /<head[^>]*>/i.exec(html);
  return head ? html.slice(0, head.index + head[0].length) + meta + html.slice(head.index + head[0].length)
    : meta + html;
}

/** The mounted apps, by id: {iframe, bridge, events}. */
const apps = new Map();

/**
 * Mounts the app `html` in a new sandboxed iframe `id` (width px wide),
 * connects an AppBridge to it before its document loads, and resolves once
 * the document is loaded. Events the node side waits for land in `events`.
 */
async function mount({ id, html, hostContext, width }) {
  const iframe = document.createElement('iframe');
  iframe.id = id;
  iframe.title = `MCP App ${id}`;
  iframe.setAttribute('sandbox', 'allow-scripts'); // an opaque origin: no access to the host
  iframe.style.cssText = `width:${width}px;height:200px;border:0;display:block`;
  document.body.append(iframe);
  const events = { initialized: 0, sizes: [], logs: [], calls: 0 };
  const bridge = new AppBridge(null, { name: 'ttm-app-test-host', version: '0.0.0' },
    { serverTools: {}, logging: {} }, { hostContext });
  bridge.oninitialized = () => { events.initialized += 1; };
  bridge.onsizechange = ({ width: w, height }) => {
    events.sizes.push({ width: w, height });
    if (height) iframe.style.height = `${Math.ceil(height)}px`;
  };
  bridge.onloggingmessage = (params) => { events.logs.push(params); };
  bridge.oncalltool = async (params) => {
    events.calls += 1;
    return window.ttmRelay(id, 'tools/call', params);
  };
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  apps.set(id, { iframe, bridge, events });
  const loaded = new Promise((resolve) => iframe.addEventListener('load', resolve, { once: true }));
  iframe.srcdoc = withCsp(html, EMPTY_CSP);
  await loaded;
}

function app(id) {
  const a = apps.get(id);
  if (!a) throw new Error(`no app ${id}`);
  return a;
}

window.ttmHost = {
  mount,
  events: (id) => app(id).events,
  appInfo: (id) => ({ version: app(id).bridge.getAppVersion(), capabilities: app(id).bridge.getAppCapabilities() }),
  /** The tool call the app shows: its arguments, then its result. */
  async toolCall(id, args, result) {
    const { bridge } = app(id);
    await bridge.sendToolInput({ arguments: args });
    await bridge.sendToolResult(result);
  },
  /** A new host context (only the fields that changed reach the app). */
  setHostContext(id, context) { app(id).bridge.setHostContext(context); },
  async teardown(id) {
    const { bridge, iframe } = app(id);
    await bridge.teardownResource({}).catch(() => {});
    await bridge.close();
    iframe.remove();
    apps.delete(id);
  },
};
