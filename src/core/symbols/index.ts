export { FileNames, PackedNames, SymbolTable, SymbolTableBuilder, type NameStore } from './table';
export { NmMissingError, parseNm, parseNmLine, readSymbols, type NmRow } from './nm';
export { symbolsFor } from './cache';
export { readElfLayout, offsetToVaddr, type ElfLayout, type LoadSegment } from './elf';
export { debugFileFor, toolOutput } from './debugFiles';
