// Browser entry point: `await init()` fetches and instantiates the wasm module once; the
// functions throw an Error with code `not-initialized` before that.
import initWasm, * as raw from './web/layer_wasm.js';
import { bind } from './api.mjs';

let ready = null;
let loaded = false;
// Why init() could not fetch the rules' documentation, for rules() to say.
let docsFailure = null;

// A file beside the module (each URL is written out whole, so bundlers see and copy it), as
// text; a clear error when it does not come.
async function fetchBeside(url, what) {
  const response = await fetch(url);
  if (!response.ok) {
    const e = new Error(`kubectl-layer: ${what} did not load (${response.status})`);
    e.code = 'not-initialized';
    throw e;
  }
  return response.text();
}

/** Load the WebAssembly module (optionally from a URL, Response or bytes) and the rules'
 * documentation beside it (which only rules() shows: if it does not come, everything else
 * works and rules() says why). Idempotent. */
export function init(input) {
  ready ??= Promise.all([
    initWasm(input === undefined ? undefined : { module_or_path: input }),
    fetchBeside(new URL('./web/rules.en.json', import.meta.url), "the rules' documentation").then(
      (text) => text,
      (e) => {
        docsFailure = e;
        return null;
      },
    ),
  ]).then(([, docs]) => {
    loaded = true;
    if (docs != null) api.installDocs('en', docs);
  });
  return ready;
}

const api = bind(
  raw,
  () => {
    if (!loaded) {
      const e = new Error('kubectl-layer: await init() before calling the package in a browser');
      e.code = 'not-initialized';
      throw e;
    }
  },
  () => null,
  () => {
    if (docsFailure) throw docsFailure;
    return null;
  },
);

/** Fetch the texts of a language (`web/ko.json` beside the module) and hand them to the core,
 * so calls with `{lang}` can write in it. Idempotent; `en` needs nothing. */
export async function loadLanguage(lang) {
  await init();
  if (!api.needsTexts(lang)) return;
  const [texts, docs] = await Promise.all([
    fetchBeside(new URL('./web/ko.json', import.meta.url), 'the Korean texts'),
    fetchBeside(new URL('./web/rules.ko.json', import.meta.url), "the Korean rules' documentation"),
  ]);
  api.installLanguage(lang, texts);
  api.installDocs(lang, docs);
}

export const { Bundle, diagnose, fit, scan, targets, rules, object, markdown, text, version, words } = api;
