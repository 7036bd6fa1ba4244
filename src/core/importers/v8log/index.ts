import { ProfileError } from '../../model';
import type { Importer } from '../types';

export const v8logImporter: Importer = {
  format: 'v8log',
  sniff: () => false,
  load: async (path) => {
    throw new ProfileError('V8 tick log import is not implemented yet', path);
  },
};
