import { ProfileError } from '../../model';
import type { Importer } from '../types';

export const perfImporter: Importer = {
  format: 'perf',
  sniff: () => false,
  load: async (path) => {
    throw new ProfileError('perf import is not implemented yet', path);
  },
};
