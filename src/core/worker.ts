// Runs long imports off the extension host thread; filled in with the importers.
export {};
