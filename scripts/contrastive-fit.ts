// The contrastive fit of scripts/train-static-model.ts: token vectors (and optionally token weights) moved so that
// a doc comment's pooled vector lies nearer its own code's pooled vector than the other code of its batch
// (in-batch negatives, a symmetric InfoNCE loss), pooled exactly as StaticModel.encode pools at search time: the
// weighted sum of token rows, L2-normalised. Plain typed-array loops on one thread, lazy Adam on the rows a batch
// touches.

/** A text as the model sees it: distinct token ids and how often each occurs. */
export interface Bag {
  ids: Int32Array;
  counts: Float32Array;
}

/** Options for {@link contrastiveFit}. */
export interface FitOptions {
  epochs: number;
  batch: number;
  /** Adam's step size for the token rows. */
  rate: number;
  /** Adam's step size for the log token weights (0: weights stay as given). */
  weightRate: number;
  /** The cosine's scale in the softmax (1 / temperature). */
  scale: number;
  seed: number;
  /**
   * Batches of pairs that lie together (mined one file and package after another), so a comment's negatives are
   * its neighbours' code — what a search inside one repository has to tell apart.
   */
  local?: boolean;
  /** Called after each epoch with its mean loss and the held-out pairs' recall@1 among 1,000. */
  onEpoch?: (epoch: number, loss: number, recall: number) => void;
}

/** Fits `embeddings` (rows × k, changed in place) and `weights` (rows, changed in place) to the pairs. */
export function contrastiveFit(
  pairs: ReadonlyArray<{ query: Bag; code: Bag }>,
  embeddings: Float32Array,
  weights: Float32Array,
  k: number,
  options: FitOptions,
): void {
  const rows = weights.length;
  let random = options.seed >>> 0 || 1;
  const next = () => {
    random ^= random << 13;
    random ^= random >>> 17;
    random ^= random << 5;
    return (random >>> 0) / 4294967296;
  };
  const order = pairs.map((_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  const heldOut = order.splice(0, Math.min(1000, Math.floor(order.length / 20)));
  const logWeight = Float32Array.from(weights, (w) => Math.log(Math.max(w, 1e-6)));
  const trainable = Uint8Array.from(weights, (w) => (w > 0 ? 1 : 0));
  const m1 = new Float32Array(embeddings.length);
  const m2 = new Float32Array(embeddings.length);
  const w1 = new Float32Array(rows);
  const w2 = new Float32Array(rows);
  const grad = new Float32Array(embeddings.length);
  const weightGrad = new Float32Array(rows);
  const touched = new Uint8Array(rows);
  const touchedList: number[] = [];
  let step = 0;
  const B = options.batch;
  const q = new Float32Array(B * k);
  const d = new Float32Array(B * k);
  const qNorm = new Float32Array(B);
  const dNorm = new Float32Array(B);
  const gq = new Float32Array(B * k);
  const gd = new Float32Array(B * k);
  const S = new Float32Array(B * B);

  const pool = (bag: Bag, out: Float32Array, at: number): number => {
    out.fill(0, at * k, (at + 1) * k);
    for (let t = 0; t < bag.ids.length; t++) {
      const id = bag.ids[t] as number;
      const c = (bag.counts[t] as number) * Math.exp(logWeight[id] as number);
      const row = id * k;
      for (let j = 0; j < k; j++)
        out[at * k + j] = (out[at * k + j] as number) + c * (embeddings[row + j] as number);
    }
    let norm = 0;
    for (let j = 0; j < k; j++) norm += (out[at * k + j] as number) ** 2;
    norm = Math.sqrt(norm) || 1;
    for (let j = 0; j < k; j++) out[at * k + j] = (out[at * k + j] as number) / norm;
    return norm;
  };
  const back = (bag: Bag, vec: Float32Array, g: Float32Array, at: number, norm: number) => {
    // Through the normalisation: (g - u (u·g)) / |v|.
    let dot = 0;
    for (let j = 0; j < k; j++) dot += (vec[at * k + j] as number) * (g[at * k + j] as number);
    for (let j = 0; j < k; j++)
      g[at * k + j] = ((g[at * k + j] as number) - (vec[at * k + j] as number) * dot) / norm;
    for (let t = 0; t < bag.ids.length; t++) {
      const id = bag.ids[t] as number;
      if (!trainable[id]) continue;
      const w = Math.exp(logWeight[id] as number);
      const c = (bag.counts[t] as number) * w;
      const row = id * k;
      let rowDot = 0;
      for (let j = 0; j < k; j++) {
        grad[row + j] = (grad[row + j] as number) + c * (g[at * k + j] as number);
        rowDot += (embeddings[row + j] as number) * (g[at * k + j] as number);
      }
      weightGrad[id] = (weightGrad[id] as number) + c * rowDot;
      if (!touched[id]) {
        touched[id] = 1;
        touchedList.push(id);
      }
    }
  };

  const recall = (): number => {
    const n = heldOut.length;
    const qs = new Float32Array(n * k);
    const ds = new Float32Array(n * k);
    heldOut.forEach((p, i) => {
      pool((pairs[p] as { query: Bag }).query, qs, i);
      pool((pairs[p] as { code: Bag }).code, ds, i);
    });
    let hits = 0;
    for (let i = 0; i < n; i++) {
      let own = 0;
      for (let j = 0; j < k; j++) own += (qs[i * k + j] as number) * (ds[i * k + j] as number);
      let better = 0;
      for (let o = 0; o < n && better === 0; o++) {
        if (o === i) continue;
        let s = 0;
        for (let j = 0; j < k; j++) s += (qs[i * k + j] as number) * (ds[o * k + j] as number);
        if (s > own) better++;
      }
      if (better === 0) hits++;
    }
    return hits / Math.max(1, n);
  };

  if (options.local) order.sort((a, b) => a - b);
  const batchesOf = (): number[][] => {
    const out: number[][] = [];
    if (options.local) {
      const offset = Math.floor(next() * options.batch);
      for (let from = offset; from + options.batch <= order.length; from += options.batch)
        out.push(order.slice(from, from + options.batch));
      for (let i = out.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [out[i], out[j]] = [out[j] as number[], out[i] as number[]];
      }
      return out;
    }
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [order[i], order[j]] = [order[j] as number, order[i] as number];
    }
    for (let from = 0; from + options.batch <= order.length; from += options.batch)
      out.push(order.slice(from, from + options.batch));
    return out;
  };
  for (let epoch = 1; epoch <= options.epochs; epoch++) {
    let lossSum = 0;
    let batches = 0;
    for (const members of batchesOf()) {
      const batch = members.map((p) => pairs[p] as { query: Bag; code: Bag });
      batch.forEach((pair, i) => {
        qNorm[i] = pool(pair.query, q, i);
        dNorm[i] = pool(pair.code, d, i);
      });
      for (let i = 0; i < B; i++)
        for (let o = 0; o < B; o++) {
          let s = 0;
          for (let j = 0; j < k; j++) s += (q[i * k + j] as number) * (d[o * k + j] as number);
          S[i * B + o] = s * options.scale;
        }
      // G = softmax by row − I plus softmax by column − I, over B (both directions of the loss).
      const G = new Float32Array(B * B);
      let loss = 0;
      for (let i = 0; i < B; i++) {
        let max = -Infinity;
        for (let o = 0; o < B; o++) max = Math.max(max, S[i * B + o] as number);
        let sum = 0;
        for (let o = 0; o < B; o++) sum += Math.exp((S[i * B + o] as number) - max);
        loss += -((S[i * B + i] as number) - max - Math.log(sum));
        for (let o = 0; o < B; o++)
          G[i * B + o] =
            (G[i * B + o] as number) +
            (Math.exp((S[i * B + o] as number) - max) / sum - (i === o ? 1 : 0)) / B;
      }
      for (let o = 0; o < B; o++) {
        let max = -Infinity;
        for (let i = 0; i < B; i++) max = Math.max(max, S[i * B + o] as number);
        let sum = 0;
        for (let i = 0; i < B; i++) sum += Math.exp((S[i * B + o] as number) - max);
        loss += -((S[o * B + o] as number) - max - Math.log(sum));
        for (let i = 0; i < B; i++)
          G[i * B + o] =
            (G[i * B + o] as number) +
            (Math.exp((S[i * B + o] as number) - max) / sum - (i === o ? 1 : 0)) / B;
      }
      lossSum += loss / (2 * B);
      batches++;
      gq.fill(0);
      gd.fill(0);
      for (let i = 0; i < B; i++)
        for (let o = 0; o < B; o++) {
          const g = (G[i * B + o] as number) * options.scale;
          if (g === 0) continue;
          for (let j = 0; j < k; j++) {
            gq[i * k + j] = (gq[i * k + j] as number) + g * (d[o * k + j] as number);
            gd[o * k + j] = (gd[o * k + j] as number) + g * (q[i * k + j] as number);
          }
        }
      batch.forEach((pair, i) => {
        back(pair.query, q, gq, i, qNorm[i] as number);
        back(pair.code, d, gd, i, dNorm[i] as number);
      });
      step++;
      const c1 = 1 - 0.9 ** step;
      const c2 = 1 - 0.999 ** step;
      for (const id of touchedList) {
        const row = id * k;
        for (let j = 0; j < k; j++) {
          const g = grad[row + j] as number;
          m1[row + j] = 0.9 * (m1[row + j] as number) + 0.1 * g;
          m2[row + j] = 0.999 * (m2[row + j] as number) + 0.001 * g * g;
          embeddings[row + j] =
            (embeddings[row + j] as number) -
            (options.rate * ((m1[row + j] as number) / c1)) /
              (Math.sqrt((m2[row + j] as number) / c2) + 1e-8);
          grad[row + j] = 0;
        }
        if (options.weightRate > 0) {
          // weightGrad holds d/d(log w) = w · d/dw = count · w · (row · g), summed over the batch.
          const g = weightGrad[id] as number;
          w1[id] = 0.9 * (w1[id] as number) + 0.1 * g;
          w2[id] = 0.999 * (w2[id] as number) + 0.001 * g * g;
          logWeight[id] =
            (logWeight[id] as number) -
            (options.weightRate * ((w1[id] as number) / c1)) / (Math.sqrt((w2[id] as number) / c2) + 1e-8);
        }
        weightGrad[id] = 0;
        touched[id] = 0;
      }
      touchedList.length = 0;
    }
    options.onEpoch?.(epoch, lossSum / Math.max(1, batches), recall());
  }
  for (let id = 0; id < rows; id++) if (trainable[id]) weights[id] = Math.exp(logWeight[id] as number);
}
