// Node entry point: the same wasm module and glue as the browser's (the package ships the
// module once), instantiated synchronously from the file beside it on import, so every
// function works right away; init() resolves at once (portable code awaits it anyway).
import { readFileSync } from 'node:fs';
import * as raw from './web/layer_wasm.js';
import { bind } from './api.mjs';

raw.initSync({ module: readFileSync(new URL('./web/layer_wasm_bg.wasm', import.meta.url)) });
const api = bind(raw, () => {});

export async function init() {}
export const { Bundle, diagnose, fit, scan, targets, rules, object, markdown, text, version } = api;
