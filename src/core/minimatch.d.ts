// minimatch 3 ships no types; only what the source-map location filter uses is declared.
declare module 'minimatch' {
  interface Options {
    dot?: boolean;
    nocase?: boolean;
  }
  function minimatch(path: string, pattern: string, options?: Options): boolean;
  namespace minimatch {
    /** False for a pattern that can match nothing. */
    function makeRe(pattern: string, options?: Options): RegExp | false;
  }
  export = minimatch;
}
