// Saves a screenshot of the page once it has labeled the bundled sample,
// through the Chrome DevTools Protocol (a headless screenshot taken at load
// would show the page before the module has run, and virtual time stops the
// page's clock).
//
//   node --experimental-websocket web/screenshot.mjs URL OUT.png [WIDTH HEIGHT]
//
// Environment: CHROMIUM (default chromium).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const [url, out, width = '1000', height = '760'] = process.argv.slice(2);
if (!url || !out) {
  console.error('usage: node --experimental-websocket web/screenshot.mjs URL OUT.png [WIDTH HEIGHT]');
  process.exit(2);
}
const profile = mkdtempSync(join(tmpdir(), 'glccl-shot-'));
const browser = spawn(process.env.CHROMIUM || 'chromium', [
  '--headless=new', '--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--hide-scrollbars',
  `--window-size=${width},${height}`, '--remote-debugging-port=0', `--user-data-dir=${profile}`, url,
], { stdio: 'ignore' });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

try {
  // Chromium writes its port to DevToolsActivePort in the profile.
  const portFile = join(profile, 'DevToolsActivePort');
  for (let i = 0; i < 300 && !existsSync(portFile); ++i) await sleep(100);
  const port = readFileSync(portFile, 'utf8').split('\n')[0];
  let page;
  for (let i = 0; i < 100 && !page; ++i) {
    const targets = await (await fetch(`http://127.0.0.1:${port}/json`)).json();
    page = targets.find((t) => t.type === 'page');
    if (!page) await sleep(100);
  }
  const socket = new WebSocket(page.webSocketDebuggerUrl);
  await new Promise((resolve, reject) => { socket.onopen = resolve; socket.onerror = reject; });
  let next = 0;
  const pending = new Map();
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    if (pending.has(message.id)) { pending.get(message.id)(message); pending.delete(message.id); }
  };
  const call = (method, params = {}) => new Promise((resolve) => {
    const id = ++next;
    pending.set(id, resolve);
    socket.send(JSON.stringify({ id, method, params }));
  });
  let done = false;
  for (let i = 0; i < 1200 && !done; ++i) {
    const answer = await call('Runtime.evaluate', { expression: 'window.glcclResult !== undefined' });
    done = answer.result?.result?.value === true;
    if (!done) await sleep(100);
  }
  if (!done) throw new Error('the page did not label the sample');
  const shot = await call('Page.captureScreenshot', { format: 'png' });
  writeFileSync(out, Buffer.from(shot.result.data, 'base64'));
  socket.close();
  console.log(`wrote ${out}`);
} finally {
  browser.kill();
  await sleep(300);
  rmSync(profile, { recursive: true, force: true });
}
