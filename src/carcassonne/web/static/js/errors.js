// The server's errors in the page's language. Each error names its `reason` (a stable id) and
// the `params` its wording quotes; the catalogues word it as `error.<reason>`. An error the
// catalogues do not know (a newer server, a failure before the server answered) shows the
// server's English message.

import { t, has, language } from "./i18n.js";

/** Params that are names the catalogues word: the engine's (a figure, a feature, an expansion)
 * and the request's fields; a name they do not know is shown as it is. */
const NAMED = {
  figure: (name) => `figure.${name}`,
  feature: (name) => `feature.${name}`,
  rule: (name) => `option.${name.replaceAll("-", "_")}`,
  key: (name) => `error.key.${name}`,
};

function worded(name, value) {
  if (Array.isArray(value)) return value.join(", ");
  if (typeof value === "number") return new Intl.NumberFormat(language(), { useGrouping: false }).format(value);
  const key = typeof value === "string" && NAMED[name] ? NAMED[name](value) : null;
  return key && has(key) ? t(key) : value;
}

/** What to tell the player about `error` ({reason, params, message}: a websocket error message
 * or an ApiError). */
export function errorText(error) {
  const key = error && error.reason ? `error.${error.reason}` : null;
  if (!key || !has(key)) return (error && error.message) || t("error.unknown");
  const params = Object.fromEntries(Object.entries(error.params || {}).map(([name, value]) => [name, worded(name, value)]));
  return t(key, params);
}
