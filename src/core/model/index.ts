export * from './frame';
export * from './callTree';
export * from './profile';
export * from './views';
export * from './diff';
export * from './units';
export * from './merge';
export * from './functionRows';
