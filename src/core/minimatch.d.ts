// minimatch 3 ships no types; only the call the source-map location filter makes is declared.
declare module 'minimatch' {
  function minimatch(path: string, pattern: string, options?: { dot?: boolean; nocase?: boolean; matchBase?: boolean }): boolean;
  export = minimatch;
}
