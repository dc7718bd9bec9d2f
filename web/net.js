// The network: a websocket that reconnects by itself, and a live feed kept from its snapshot and numbered changes.
// Nothing here draws or keeps game state.

// Close codes after which trying again cannot help: no such tournament, a token the server does not know.
const FINAL_CLOSES = new Set([4401, 4404]);

// A cluster's gateways (GET /api/gateways), asked once while the page's own gateway is there: when it is gone,
// a socket goes on through another with the same token, as a room's client goes to another server.
let gateways = null;

function learnGateways() {
  if (gateways !== null) return;
  gateways = [];
  fetch("/api/gateways")
    .then((response) => (response.ok ? response.json() : { gateways: [] }))
    .then((answer) => {
      gateways = Array.isArray(answer.gateways) ? answer.gateways : [];
    })
    .catch(() => {});
}

// The origin of a gateway's address, or null for anything a page must not go on through: not a URL, not http or
// https, or with user information (which would take the player's token to another host). The director lists only
// addresses it checked; the page does not rely on that.
export function gatewayOrigin(address) {
  try {
    const url = new URL(address);
    if ((url.protocol !== "http:" && url.protocol !== "https:") || url.username || url.password) return null;
    return url.origin + "/";
  } catch {
    return null;
  }
}

// Refusals in a row after which a socket tries the next gateway: one may be a restart's moment.
const REFUSALS_BEFORE_ANOTHER = 2;

export class Socket {
  // `path` is the server path (with its query); `onMessage` gets each message, `onStatus` "open", "lost" or "refused"
  // (the server closed for good: no such tournament, or an unknown token).
  constructor(path, { onMessage, onStatus = () => {}, onOpen = () => {} }) {
    Object.assign(this, { path, onMessage, onStatus, onOpen });
    this.stopped = false;
    this.retry = 500;
    this.base = null; // the page's own gateway; another's address once it went on through another
    this.refusals = 0;
    this.connect();
  }

  connect() {
    const url = new URL(this.path, this.base || location.href);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    this.socket = new WebSocket(url);
    let opened = false;
    // A frame carries one or more messages, one per line (docs/protocol.md).
    this.socket.onmessage = (message) => message.data.split("\n").forEach((line) => this.onMessage(JSON.parse(line)));
    this.socket.onopen = () => {
      opened = true;
      this.retry = 500;
      this.refusals = 0;
      if (this.base === null) learnGateways();
      this.onStatus("open");
      this.onOpen();
    };
    this.socket.onclose = (event) => {
      if (this.stopped) return;
      if (FINAL_CLOSES.has(event.code)) {
        this.stopped = true;
        this.onStatus("refused");
        return;
      }
      this.onStatus("lost");
      if (!opened && ++this.refusals >= REFUSALS_BEFORE_ANOTHER) this.nextGateway();
      setTimeout(() => {
        if (!this.stopped) this.connect();
      }, this.retry); // the same token resumes the same seat
      this.retry = Math.min(this.retry * 2, 5000);
    };
  }

  // The next address in the round of the page's own and the cluster's gateways: the page's own stays in it, for a
  // page behind a load balancer whose gateways register addresses of their own. None known: the same.
  nextGateway() {
    const known = [...new Set([location.href, ...(gateways || [])].map(gatewayOrigin).filter(Boolean))];
    if (known.length < 2) return;
    const here = known.indexOf(gatewayOrigin(this.base || location.href));
    this.base = known[(here + 1) % known.length];
    this.refusals = 0;
  }

  send(message) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
  }

  stop() {
    this.stopped = true;
    if (this.socket) this.socket.close();
  }
}

// Rows by key from a feed (server/feeds.py): a snapshot, then changes numbered one by one; a gap asks again.
export class Feed {
  constructor(name, { resync, onChange }) {
    Object.assign(this, { name, resync, onChange });
    this.rows = new Map();
    this.seq = null;
  }

  // Whether the message was this feed's.
  receive(message) {
    if (message.type !== "feed" || message.feed !== this.name) return false;
    if (message.snapshot) {
      this.rows = new Map(Object.entries(message.rows));
    } else if (this.seq === null || message.seq !== this.seq + 1) {
      this.seq = null;
      this.resync();
      return true;
    } else {
      for (const [key, row] of Object.entries(message.rows)) {
        if (row === null) this.rows.delete(key);
        else this.rows.set(key, row);
      }
    }
    this.seq = message.seq;
    this.onChange(this.rows);
    return true;
  }

  // The rows whose keys start with `prefix` ("p:", "t:", "r:").
  list(prefix) {
    return [...this.rows]
      .filter(([key]) => key.startsWith(prefix))
      .map(([key, row]) => ({ key: key.slice(prefix.length), ...row }));
  }
}
