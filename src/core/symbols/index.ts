export { FileNames, PackedNames, SymbolTable, type NameStore } from './table';
export { NmMissingError, parseNm, readSymbols } from './nm';
export { symbolsFor } from './cache';
export { readElfLayout, offsetToVaddr, type ElfLayout, type LoadSegment } from './elf';
