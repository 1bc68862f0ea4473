/** `spec.panels["a b"].x[0]` -> ['spec', 'panels', 'a b', 'x', 0] (the server's path syntax). */
export function splitPath(path: string): (string | number)[] {
  const out: (string | number)[] = [];
  const re = /\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]|\.?([^.[\]]+)/g;
  for (let m = re.exec(path); m; m = re.exec(path)) {
    if (m[1] !== undefined) out.push(Number(m[1]));
    else if (m[2] !== undefined) out.push(JSON.parse(m[2]) as string);
    else if (m[3] !== undefined && m[3] !== '(root)') out.push(m[3]);
  }
  return out;
}
