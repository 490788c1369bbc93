/** Lower-case word tokens; words of one or two letters and common English words carry no signal. */
export function tokenize(text: string): string[] {
  return (text.toLowerCase().match(/[a-z0-9_]+/g) ?? []).filter((word) => word.length > 2 && !STOP_WORDS.has(word));
}

const STOP_WORDS = new Set(
  "the and for that this with from was were are but not its it's has have had into then than when what which who why how all any can did does our out their them they you your".split(
    " ",
  ),
);

export interface Bm25Options {
  /** Term-frequency saturation. @defaultValue 1.2 */
  k1?: number;
  /** Length normalisation. @defaultValue 0.75 */
  b?: number;
}

/**
 * Okapi BM25 scores of `query` against each document: for each query term,
 * idf × tf·(k1+1) / (tf + k1·(1 − b + b·len/avgLen)), with
 * idf = ln(1 + (N − df + 0.5)/(df + 0.5)). A document that shares no term
 * with the query scores 0.
 */
export function bm25Scores(query: string, documents: readonly string[], options: Bm25Options = {}): number[] {
  const k1 = options.k1 ?? 1.2;
  const b = options.b ?? 0.75;
  const docs = documents.map(tokenize);
  const avgLength = docs.reduce((sum, doc) => sum + doc.length, 0) / Math.max(docs.length, 1) || 1;
  const documentFrequency = new Map<string, number>();
  for (const doc of docs) for (const term of new Set(doc)) documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
  const terms = [...new Set(tokenize(query))];
  return docs.map((doc) => {
    const frequency = new Map<string, number>();
    for (const term of doc) frequency.set(term, (frequency.get(term) ?? 0) + 1);
    let score = 0;
    for (const term of terms) {
      const tf = frequency.get(term) ?? 0;
      if (tf === 0) continue;
      const df = documentFrequency.get(term) ?? 0;
      const idf = Math.log(1 + (docs.length - df + 0.5) / (df + 0.5));
      score += (idf * tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * doc.length) / avgLength));
    }
    return score;
  });
}
