import { ProfileError } from '../model';
import type { Importer } from './types';

export const foldedImporter: Importer = {
  format: 'folded',
  sniff: () => false,
  load: async (path) => {
    throw new ProfileError('folded import is not implemented yet', path);
  },
};
