import { CodeIndex } from '../src/search/code-index.js';

const times: number[] = [];
for (let i = 0; i < 6; i++) {
  const t = performance.now();
  await CodeIndex.build(process.argv[2]!, { saved: false, vectors: 'none' });
  times.push(performance.now() - t);
}
console.log('min', Math.round(Math.min(...times)), 'median', Math.round(times.sort((a, b) => a - b)[3]!));
