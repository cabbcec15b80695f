// The lobby over HTTP + JSON (docs/protocol.md): create, list, find by invite, join, leave,
// rematch, the rules catalog. Errors are thrown as ApiError with the server's own words.
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

function describe(detail) {
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) {
    return detail
      .map((d) => {
        const where = (d.loc || []).filter((x) => x !== 'body').join('.');
        return where ? `${where}: ${d.msg}` : d.msg;
      })
      .join('; ');
  }
  return JSON.stringify(detail);
}

// One request to the server (the account, pairing and profile screens call it too).
export async function request(method, path, { body, token, language } = {}) {
  const headers = { Accept: 'application/json' };
  // the server's words (errors) in the page's language, which the player may have chosen
  const lang = language || (typeof document !== 'undefined' && document.documentElement.lang);
  if (lang) headers['Accept-Language'] = lang;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (token) headers.Authorization = `Bearer ${token}`;
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    throw new ApiError(0, e.message || String(e));
  }
  const text = await response.text();
  let data;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = text;
  }
  if (!response.ok) {
    const detail = data && typeof data === 'object' && 'detail' in data ? data.detail : data;
    throw new ApiError(response.status, describe(detail) || response.statusText);
  }
  return data;
}

export const api = {
  createTable: (spec) => request('POST', '/api/tables', { body: spec }),
  // a page of the open tables: `cursor` is the `next_cursor` of the page before (none: the first)
  openTables: ({ cursor, limit } = {}) => {
    const query = new URLSearchParams();
    if (limit) query.set('limit', String(limit));
    if (cursor) query.set('cursor', cursor);
    const qs = query.toString();
    return request('GET', qs ? `/api/tables?${qs}` : '/api/tables');
  },
  table: (id) => request('GET', `/api/tables/${encodeURIComponent(id)}`),
  invite: (code) => request('GET', `/api/invites/${encodeURIComponent(code.trim())}`),
  join: (id, name, seat) =>
    request('POST', `/api/tables/${encodeURIComponent(id)}/join`, {
      body: seat ? { name, seat } : { name },
    }),
  leave: (id, token) => request('POST', `/api/tables/${encodeURIComponent(id)}/leave`, { token }),
  rematch: (id, token) =>
    request('POST', `/api/tables/${encodeURIComponent(id)}/rematch`, { token }),
  // how to play (docs/protocol.md), for a preset and a table's rules line, in the page's language
  guide: ({ preset, rules } = {}) => {
    const query = new URLSearchParams();
    if (preset) query.set('preset', preset);
    if (rules) query.set('rules', rules);
    const qs = query.toString();
    return request('GET', qs ? `/api/guide?${qs}` : '/api/guide');
  },
  recordUrl: (id) => `/api/tables/${encodeURIComponent(id)}/record`,
  // the rule options, presets and computer levels with their words, in `language`
  rules: (language) => request('GET', '/api/rules', { language }),
};
