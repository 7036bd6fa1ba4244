import { ProfileError } from '../model';
import type { Importer } from './types';

export const cpuprofileImporter: Importer = {
  format: 'cpuprofile',
  sniff: () => false,
  load: async (path) => {
    throw new ProfileError('cpuprofile import is not implemented yet', path);
  },
};
