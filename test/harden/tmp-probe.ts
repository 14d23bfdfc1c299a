import { random } from '../serve/frame-fuzz.js';
import { runSearchEscapes } from './search-escapes.js';

const t = Date.now();
const out = await runSearchEscapes(Number(process.argv[2] ?? 20), random(Number(process.argv[3] ?? 16)));
console.log(Date.now() - t, JSON.stringify(out));
