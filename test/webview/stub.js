// In-page stub for the webview tests (plain JS: injected with page.addInitScript).
// Provides acquireVsCodeApi, records posted messages in window.__posted, keeps
// setState in window.__state, records CSP violations in window.__cspViolations,
// and answers the view's requests from the fixture (or a synthetic run whose
// events are generated on demand from their index).
function stub(cfg) {
  const w = window;
  const postedMsgs = [];
  const cspViolations = [];
  w.__posted = postedMsgs;
  w.__cspViolations = cspViolations;
  w.__fetchCount = 0;
  let state = cfg.state;
  w.__state = state;
  document.addEventListener('securitypolicyviolation', (e) => cspViolations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`));
  const reply = (data) => {
    setTimeout(() => window.dispatchEvent(new MessageEvent('message', { data })), cfg.latency);
  };
  const fx = cfg.fixture;
  const synthThreads = [
    { id: 1, name: 'main' },
    { id: 2, name: 'producer' },
    { id: 3, name: 'consumer-1' },
    { id: 4, name: 'consumer-2' },
  ];
  const kinds = ['R', 'W', 'R', 'R', 'W', 'ACQ', 'R', 'REL', 'ENTER', 'EXIT'];
  function synth(i) {
    const t = synthThreads[(i * 7 + (i >> 5)) % 4];
    const kind = kinds[i % 10];
    const e = { i, thread: t.id, threadName: t.name, kind, file: `com/example/shop/Worker${i % 7}.java`, line: 10 + (i % 300), method: `com.example.shop.Worker${i % 7}.step${i % 13}()` };
    if (kind === 'R' || kind === 'W') {
      e.variable = `field${(i * 31) % 97}`;
      e.value = (i * 2654435761) % 1000;
    } else if (kind === 'ACQ' || kind === 'REL') e.target = 100 + (i % 5);
    return e;
  }
  function events(p) {
    const run = String(p.run);
    const offset = Number(p.offset);
    const limit = Number(p.limit);
    if (cfg.synthetic[run] !== undefined) {
      const total = cfg.synthetic[run];
      const out = [];
      for (let i = offset; i < Math.min(total, offset + limit); i++) out.push(synth(i));
      return { run, total, offset, events: out, threads: synthThreads };
    }
    let list = fx.events[run] || [];
    const threads = p.threads;
    if (threads && threads.length) list = list.filter((e) => threads.includes(e.thread));
    if (p.variable) list = list.filter((e) => typeof e.variable === 'string' && e.variable.includes(String(p.variable)));
    if (p.search) {
      const s = String(p.search).toLowerCase();
      list = list.filter((e) => [e.variable, e.file, e.method].some((x) => typeof x === 'string' && x.toLowerCase().includes(s)));
    }
    if (p.accessesOnly) list = list.filter((e) => e.kind === 'R' || e.kind === 'W');
    return { run, total: list.length, offset, events: list.slice(offset, offset + limit), threads: fx.threads[run] || [] };
  }
  function handle(m) {
    if (m.type === 'fetchEvents') {
      w.__fetchCount++;
      reply({ type: 'events', requestId: m.requestId, result: events(m.params) });
    } else if (m.type === 'request') {
      const params = m.params || {};
      let result;
      switch (m.method) {
        case 'patterns':
          result = { summary: fx.summary, total: fx.patterns.length, patterns: fx.patterns };
          break;
        case 'runs':
          result = { runs: fx.runs };
          break;
        case 'bugs':
          result = { bugs: fx.bugs };
          break;
        case 'explanations':
          result = fx.explanations || { state: 'none', groups: [], total: 0, stats: { failing: 0, passing: 0, minSupport: 0, truncated: false, ms: 0 } };
          break;
        case 'methods':
          result = fx.methods || { state: 'none', methods: [], total: 0, executions: { total: 0, failed: 0, passed: 0 }, representation: 'inter', griffin: [], stats: { calls: 0, edges: 0, ms: 0 }, message: 'No runs to rank.' };
          break;
        case 'bugGraph':
          result = fx.graphs[Number(params.bug)];
          if (!result) {
            reply({ type: 'response', requestId: m.requestId, error: `no bug ${String(params.bug)}` });
            return;
          }
          break;
        default:
          reply({ type: 'response', requestId: m.requestId, error: 'unknown method' });
          return;
      }
      reply({ type: 'response', requestId: m.requestId, result });
    }
  }
  let acquired = false;
  w.acquireVsCodeApi = () => {
    if (acquired) throw new Error('acquireVsCodeApi called twice');
    acquired = true;
    return {
      postMessage(m) {
        const copy = JSON.parse(JSON.stringify(m));
        postedMsgs.push(copy);
        handle(copy);
      },
      getState: () => state,
      setState: (s) => {
        state = JSON.parse(JSON.stringify(s));
        w.__state = state;
      },
    };
  };
}
