// HTTP calls and the live game connection (websocket with automatic reconnect).

export class ApiError extends Error {
  /** `code` is the error's kind, `reason` and `params` what exactly (see errors.js). */
  constructor(code, message, reason = null, params = {}) {
    super(message);
    this.code = code;
    this.reason = reason;
    this.params = params;
  }
}

/**
 * A call of the JSON API. `body` is sent as JSON; `raw` (a string or a Blob, e.g. a File) is sent
 * as it is, for a body the page must not re-encode: JSON.parse and JSON.stringify round every
 * integer beyond 2^53, and a record's seed may be one.
 */
export async function api(path, { method = "GET", body, raw, token } = {}) {
  const headers = {};
  if (body !== undefined || raw !== undefined) headers["content-type"] = "application/json";
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(path, { method, headers, body: raw ?? (body === undefined ? undefined : JSON.stringify(body)) });
  if (!response.ok) throw await apiError(response);
  try {
    return await response.json();
  } catch {
    return null;
  }
}

/** The file the server serves at `path`, as its bytes (never parsed here): a game record. */
export async function apiFile(path) {
  const response = await fetch(path);
  if (!response.ok) throw await apiError(response);
  return response.blob();
}

async function apiError(response) {
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  return new ApiError(data?.error || `http-${response.status}`, data?.message || response.statusText, data?.reason, data?.params);
}

/**
 * A game connection: says hello with the seat token, hands every server message to `onMessage`,
 * and reconnects (with back-off) when the connection drops, e.g. while the server restarts.
 */
export class GameSocket {
  constructor(gameId, token, { onMessage, onStatus }) {
    this.gameId = gameId;
    this.token = token;
    this.onMessage = onMessage;
    this.onStatus = onStatus || (() => {});
    this.delay = 500;
    this.closed = false;
    this.ws = null;
    this.connect();
  }

  connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${scheme}://${location.host}/ws/${encodeURIComponent(this.gameId)}`);
    this.ws = ws;
    ws.onopen = () => {
      this.delay = 500;
      ws.send(JSON.stringify({ type: "hello", token: this.token || null }));
      this.onStatus("open");
    };
    ws.onmessage = (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (message.type === "error" && (message.code === "not-found" || message.code === "unauthorised") && !this.greeted) {
        this.closed = true; // retrying cannot help
      }
      if (message.type === "welcome") this.greeted = true;
      this.onMessage(message);
    };
    ws.onclose = () => {
      this.onStatus("closed");
      if (this.closed) return;
      setTimeout(() => this.connect(), this.delay);
      this.delay = Math.min(this.delay * 2, 5000);
    };
  }

  send(message) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(message));
      return true;
    }
    return false;
  }

  close() {
    this.closed = true;
    if (this.ws) this.ws.close();
  }
}
