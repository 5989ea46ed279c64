// The page: loads the module (glccl_web.js, glccl_web.wasm), labels the
// bundled sample, then any PNG dropped or chosen; shows the labels colored,
// the component table and the timings. With ?report in the address it posts
// its result to /result (web/serve.py), for web/test.sh; ?connectivity=4
// labels the sample with 4-connectivity, ?sample=NAME.png labels that file
// of the page's folder instead of the bundled sample.
'use strict';

const $ = (id) => document.getElementById(id);
const query = new URLSearchParams(location.search);
const report = query.has('report');
// A file name of the page's own folder, nothing else.
const sampleName = /^[\w.-]+\.png$/.test(query.get('sample') || '') ? query.get('sample') : 'blobs_and_text.png';
let module = null;

function setStatus(text, error) {
  $('status').textContent = text;
  $('status').className = error ? 'error' : '';
}

async function post(result) {
  if (!report) return;
  await fetch('/result', { method: 'POST', headers: { 'Content-Type': 'application/json' },
                           body: JSON.stringify(result) });
}

// A color per label, the same on every run; 0 (background) black.
function labelColor(label) {
  if (label === 0) return [0, 0, 0];
  let h = Math.imul(label, 0x9e3779b1) >>> 0;
  h = Math.imul(h ^ (h >>> 15), 0x85ebca6b) >>> 0;
  return [64 + (h & 0xbf), 64 + ((h >>> 8) & 0xbf), 64 + ((h >>> 16) & 0xbf)];
}

function drawLabels(labels, width, height) {
  const canvas = $('labels');
  canvas.width = width;
  canvas.height = height;
  const context = canvas.getContext('2d');
  const pixels = context.createImageData(width, height);
  const rgba = pixels.data;
  for (let i = 0; i < labels.length; ++i) {
    const [r, g, b] = labelColor(labels[i]);
    rgba[4 * i] = r; rgba[4 * i + 1] = g; rgba[4 * i + 2] = b; rgba[4 * i + 3] = 255;
  }
  context.putImageData(pixels, 0, 0);
}

function fillTable(table, header, rows) {
  table.replaceChildren();
  const head = table.insertRow();
  for (const name of header) {
    const th = document.createElement('th');
    th.textContent = name;
    head.appendChild(th);
  }
  for (const row of rows) {
    const tr = table.insertRow();
    for (const cell of row) {
      const td = tr.insertCell();
      if (cell instanceof Node) td.appendChild(cell); else td.textContent = cell;
    }
  }
}

function swatch(label) {
  const span = document.createElement('span');
  span.className = 'swatch';
  span.style.background = `rgb(${labelColor(label).join(',')})`;
  return span;
}

async function sha256(labels) {
  if (!crypto.subtle) return '';
  const digest = await crypto.subtle.digest('SHA-256', new Uint8Array(labels.buffer));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
}

function showResult(result, name) {
  const ms = result.ms;
  fillTable($('timings'), ['stage', 'ms'], [
    ['decode PNG (stb_image, wasm)', ms.decode.toFixed(2)],
    ['upload texture', ms.upload.toFixed(2)],
    ['label, first call (programs, targets)', ms.firstLabel.toFixed(2)],
    ['label', ms.label.toFixed(2)],
    ['component table', ms.table.toFixed(2)],
    ['download labels', ms.download.toFixed(2)],
    ['reference labeler (wasm, CPU)', ms.reference.toFixed(2)],
  ]);
  $('timingNote').textContent = `(${result.backend} engine, wall-clock in this tab)`;
  $('verdict').textContent = result.reference.same
    ? 'Labels and table equal the reference labeler\'s.'
    : `Labels differ from the reference labeler's (${result.reference.count} components there).`;
  $('verdict').className = result.reference.same ? 'same' : 'differs';
  $('context').textContent = `${result.context.version} · ${result.context.renderer}`;
  $('count').textContent = `${result.count} (connectivity ${result.connectivity})`;
  fillTable($('components'), ['', 'label', 'left', 'top', 'width', 'height', 'area', 'centroid_x', 'centroid_y'],
            result.components.map((c, i) => [swatch(i + 1), i + 1, c[0], c[1], c[2], c[3], c[4],
                                              c[5].toFixed(2), c[6].toFixed(2)]));
  $('inputCaption').textContent = `${name}: ${result.width}x${result.height}, ${result.sampleBits}-bit`;
  $('labelsCaption').textContent = `labels: ${result.count} components, ${ms.label.toFixed(2)} ms`;
}

// Labels the PNG `bytes`; shows and returns the result, with the labels'
// SHA-256 (uint32 little-endian, row 0 first).
async function labelPng(bytes, name) {
  $('input').src = URL.createObjectURL(new Blob([bytes], { type: 'image/png' }));
  const connectivity = Number($('connectivity').value);
  const pointer = module._malloc(bytes.length);
  module.HEAPU8.set(bytes, pointer);
  const status = module.ccall('glccl_web_label', 'number', ['number', 'number', 'number'],
                              [pointer, bytes.length, connectivity]);
  module._free(pointer);
  const result = JSON.parse(module.UTF8ToString(module.ccall('glccl_web_result', 'number', [], [])));
  if (status !== 0) {
    setStatus(`${name}: ${result.error}`, true);
    return result;
  }
  const at = module.ccall('glccl_web_labels', 'number', [], []);
  const labels = new Uint32Array(module.HEAPU32.buffer, at, result.width * result.height).slice();
  drawLabels(labels, result.width, result.height);
  showResult(result, name);
  result.sha256 = await sha256(labels);
  result.name = name;
  setStatus(`${name} labeled. Drop another PNG to label it.`);
  return result;
}

async function labelSample() {
  const response = await fetch(sampleName);
  if (!response.ok) throw new Error(`${sampleName}: HTTP ${response.status}`);
  return labelPng(new Uint8Array(await response.arrayBuffer()), sampleName);
}

async function start() {
  // Said before the module is loaded: a browser without WebGL2 (no GPU and
  // no software rasterizer) cannot run the raster engine at all.
  if (!document.createElement('canvas').getContext('webgl2')) {
    setStatus('This browser offers no WebGL2: glccl\'s raster engine cannot run here.', true);
    await post({ webgl2: false });
    return;
  }
  if (query.get('connectivity') === '4') $('connectivity').value = '4';
  module = await createGlcclModule();
  if (module.ccall('glccl_web_start', 'number', ['string'], ['#glccl-gl']) !== 0) {
    const result = JSON.parse(module.UTF8ToString(module.ccall('glccl_web_result', 'number', [], [])));
    setStatus(result.error, true);
    await post({ webgl2: true, ok: false, error: result.error });
    return;
  }
  const result = await labelSample();
  window.glcclResult = result;  // for scripts driving the page (web/screenshot.mjs)
  await post({ webgl2: true, ...result });

  $('sample').onclick = () => labelSample();
  $('file').onchange = async (event) => {
    const file = event.target.files[0];
    if (file) await labelPng(new Uint8Array(await file.arrayBuffer()), file.name);
  };
  const drop = $('drop');
  document.addEventListener('dragover', (event) => { event.preventDefault(); drop.classList.add('over'); });
  document.addEventListener('dragleave', () => drop.classList.remove('over'));
  document.addEventListener('drop', async (event) => {
    event.preventDefault();
    drop.classList.remove('over');
    const file = event.dataTransfer.files[0];
    if (file) await labelPng(new Uint8Array(await file.arrayBuffer()), file.name);
  });
}

start().catch(async (error) => {
  setStatus(String(error), true);
  await post({ webgl2: true, ok: false, error: String(error) });
});
