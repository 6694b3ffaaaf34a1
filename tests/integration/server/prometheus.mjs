// A parser for the Prometheus text exposition format (version 0.0.4), strict enough to catch a
// malformed /metrics: every sample line is `name{label="value",...} value`, label values may
// escape \\, \" and \n, and every family has at most one TYPE line, before its samples.
const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"/;

function parseLabels(text, line) {
  const labels = {};
  let rest = text;
  while (rest.length > 0) {
    const match = rest.match(LABEL);
    if (!match) throw new Error(`bad label in: ${line}`);
    labels[match[1]] = match[2].replace(/\\(.)/g, (_, c) => (c === 'n' ? '\n' : c));
    rest = rest.slice(match[0].length);
    if (rest.startsWith(',')) rest = rest.slice(1);
    else if (rest.length > 0) throw new Error(`bad label separator in: ${line}`);
  }
  return labels;
}

function parseValue(text, line) {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`bad value in: ${line}`);
  return Number(text);
}

/** { types: Map(family -> type), samples: [{ name, labels, value }] } */
export function parsePrometheus(text) {
  const types = new Map();
  const samples = [];
  const seen = new Set();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      const type = line.match(/^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/);
      if (type) {
        if (types.has(type[1])) throw new Error(`second TYPE for ${type[1]}`);
        if (seen.has(type[1])) throw new Error(`TYPE after samples for ${type[1]}`);
        types.set(type[1], type[2]);
      } else if (!/^# HELP [a-zA-Z_:][a-zA-Z0-9_:]* /.test(line)) {
        throw new Error(`bad comment line: ${line}`);
      }
      continue;
    }
    const name = line.match(NAME)?.[0];
    if (!name) throw new Error(`bad sample line: ${line}`);
    let rest = line.slice(name.length);
    let labels = {};
    if (rest.startsWith('{')) {
      const close = rest.lastIndexOf('}');
      if (close < 0) throw new Error(`unclosed labels: ${line}`);
      labels = parseLabels(rest.slice(1, close), line);
      rest = rest.slice(close + 1);
    }
    const parts = rest.trim().split(/\s+/);
    if (!rest.startsWith(' ') || parts.length < 1 || parts.length > 2) throw new Error(`bad sample line: ${line}`);
    samples.push({ name, labels, value: parseValue(parts[0], line) });
    seen.add(name.replace(/_(bucket|sum|count)$/, ''));
    seen.add(name);
  }
  return { types, samples };
}

/** The value of the one sample with `name` whose labels include `labels`. */
export function metric(parsed, name, labels = {}) {
  const found = parsed.samples.filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (found.length !== 1) throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}`);
  return found[0].value;
}

export async function scrape(httpBase) {
  const response = await fetch(`${httpBase}/metrics`);
  if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
  const type = response.headers.get('content-type');
  if (!type.startsWith('text/plain; version=0.0.4')) throw new Error(`content-type ${type}`);
  return parsePrometheus(await response.text());
}

/** Scrapes until `check(parsed)` holds (rooms leave memory on their own strands), or throws after
 * `ms` naming `what`; with `what` null it returns the last scrape instead. */
export async function scrapeUntil(httpBase, check, what, ms = 5000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const now = await scrape(httpBase);
    if (check(now)) return now;
    if (Date.now() > deadline) {
      // Without `what` the caller asserts on the last scrape itself (a message with figures).
      if (what === null) return now;
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** arbiter_games_in_memory for one status and variant. */
export const gamesInMemory = (parsed, status, variant) => metric(parsed, 'arbiter_games_in_memory', { status, variant });
