// Node entry point: the same wasm module and glue as the browser's (the package ships the
// module once), instantiated synchronously from the file beside it on import, so every
// function works right away; init() resolves at once (portable code awaits it anyway).
import { readFileSync } from 'node:fs';
import * as raw from './web/layer_wasm.js';
import { bind } from './api.mjs';

raw.initSync({ module: readFileSync(new URL('./web/layer_wasm_bg.wasm', import.meta.url)) });
// The Korean texts are a file beside the module, read the first time a call asks for Korean.
const readTexts = (code) => readFileSync(new URL(`./web/${code}.json`, import.meta.url), 'utf8');
// So is the rules' documentation, read the first time rules() asks for a language's.
const readDocs = (code) => readFileSync(new URL(`./web/rules.${code}.json`, import.meta.url), 'utf8');
const api = bind(raw, () => {}, readTexts, readDocs);

export async function init() {}

/** Load the texts of a language now (Node also loads them on the first call that needs them). */
export async function loadLanguage(lang) {
  if (api.needsTexts(lang)) api.installLanguage(lang, readTexts('ko'));
}
export const { Bundle, diagnose, fit, scan, targets, rules, object, markdown, text, version, words } = api;
