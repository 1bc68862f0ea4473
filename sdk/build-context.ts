/** What `dashctl build` passes to a file whose default export is a function. */
export interface BuildContext {
  /** The absolute path of the file being built. */
  file: string;
  /** Its directory, to read inputs next to it (`readFileSync(join(ctx.dir, 'services.json'))`). */
  dir: string;
}
