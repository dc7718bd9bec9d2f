// The network: a websocket that reconnects by itself, and a live feed kept from its snapshot and numbered changes.
// Nothing here draws or keeps game state.

// Close codes after which trying again cannot help: no such tournament, a token the server does not know.
const FINAL_CLOSES = new Set([4401, 4404]);

export class Socket {
  // `path` is the server path (with its query); `onMessage` gets each message, `onStatus` "open", "lost" or "refused"
  // (the server closed for good: no such tournament, or an unknown token).
  constructor(path, { onMessage, onStatus = () => {}, onOpen = () => {} }) {
    Object.assign(this, { path, onMessage, onStatus, onOpen });
    this.stopped = false;
    this.retry = 500;
    this.connect();
  }

  connect() {
    const url = new URL(this.path, location.href);
    url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
    this.socket = new WebSocket(url);
    // A frame carries one or more messages, one per line (docs/protocol.md).
    this.socket.onmessage = (message) => message.data.split("\n").forEach((line) => this.onMessage(JSON.parse(line)));
    this.socket.onopen = () => {
      this.retry = 500;
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
      setTimeout(() => {
        if (!this.stopped) this.connect();
      }, this.retry); // the same token resumes the same seat
      this.retry = Math.min(this.retry * 2, 5000);
    };
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
