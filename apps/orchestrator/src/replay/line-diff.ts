/**
 * A unified-style line diff (LCS), with `context` unchanged lines around each
 * change. Tool outputs are small (they fit an observation), so the O(n·m)
 * table is fine; beyond `maxLines` only the heads are compared.
 */
export function lineDiff(expected: string, actual: string, options: { context?: number; maxLines?: number } = {}): string {
  const context = options.context ?? 2;
  const maxLines = options.maxLines ?? 2000;
  const a = expected.split("\n").slice(0, maxLines);
  const b = actual.split("\n").slice(0, maxLines);
  const table: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) {
      const row = table[i] as number[];
      row[j] = a[i] === b[j] ? (table[i + 1]?.[j + 1] ?? 0) + 1 : Math.max(table[i + 1]?.[j] ?? 0, row[j + 1] ?? 0);
    }
  }
  const ops: { sign: " " | "-" | "+"; line: string }[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      ops.push({ sign: " ", line: a[i] as string });
      i += 1;
      j += 1;
    } else if (i < a.length && (j >= b.length || (table[i + 1]?.[j] ?? 0) >= (table[i]?.[j + 1] ?? 0))) {
      ops.push({ sign: "-", line: a[i] as string });
      i += 1;
    } else {
      ops.push({ sign: "+", line: b[j] as string });
      j += 1;
    }
  }
  const keep = ops.map(
    (op, index) => op.sign !== " " || ops.slice(Math.max(0, index - context), index + context + 1).some((near) => near.sign !== " "),
  );
  const lines = ["--- recorded", "+++ replay"];
  let skipped = false;
  ops.forEach((op, index) => {
    if (!keep[index]) {
      if (!skipped) lines.push("@@ …");
      skipped = true;
      return;
    }
    skipped = false;
    lines.push(`${op.sign} ${op.line}`);
  });
  return lines.join("\n");
}
