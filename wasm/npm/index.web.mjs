// Browser entry point: `await init()` fetches and instantiates the wasm module once; the
// functions throw an Error with code `not-initialized` before that.
import initWasm, * as raw from './web/layer_wasm.js';
import { bind } from './api.mjs';

let ready = null;
let loaded = false;

/** Load the WebAssembly module (optionally from a URL, Response or bytes). Idempotent. */
export function init(input) {
  ready ??= initWasm(input === undefined ? undefined : { module_or_path: input }).then(() => {
    loaded = true;
  });
  return ready;
}

const api = bind(raw, () => {
  if (!loaded) {
    const e = new Error('kubectl-layer: await init() before calling the package in a browser');
    e.code = 'not-initialized';
    throw e;
  }
});

/** Fetch the texts of a language (`web/ko.json` beside the module) and hand them to the core,
 * so calls with `{lang}` can write in it. Idempotent; `en` needs nothing. */
export async function loadLanguage(lang) {
  await init();
  if (!api.needsTexts(lang)) return;
  const response = await fetch(new URL('./web/ko.json', import.meta.url));
  if (!response.ok) {
    const e = new Error(`kubectl-layer: the Korean texts did not load (${response.status})`);
    e.code = 'not-initialized';
    throw e;
  }
  api.installLanguage(lang, await response.text());
}

export const { Bundle, diagnose, fit, scan, targets, rules, object, markdown, text, version, words } = api;
