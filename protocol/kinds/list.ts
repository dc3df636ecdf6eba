// LIST: the paths that match a mask.

import { counted, formatCount } from '../../common/text.ts';
import { cleanPath } from '../paths.ts';
import { heading } from '../wire.ts';
import type { Kind, ResultTexts } from './kind.ts';

export type ListRequest = { kind: 'list'; line: number; mask: string };

export type ListResults = {
  list: { kind: 'list'; request: string; mask: string; paths: string[]; total: number };
};

export const list: Kind<ListRequest> = {
  keyword: 'LIST',
  form: 'mask',
  synonyms: ['ls', 'dir', 'glob', 'tree'],
  read: (payload, line) => {
    const mask = cleanPath(payload);
    return mask !== '' ? { kind: 'list', mask, line } : undefined;
  },
  describe: (r) => `LIST ${r.mask}`,
  teach: [
    '=== LIST: src/**/*.ts ===',
    '  lists paths matching a mask: `*` stays in one folder, `**` goes into every folder, `{a,b}` means either.',
  ].join('\n'),
};

export const listResults: ResultTexts<ListResults> = {
  list: {
    render: (r) => {
      if (r.total === 0) {
        const hint = r.mask.includes('/')
          ? ''
          : `; a mask without "/" looks in the top folder only, **/${r.mask} looks in every folder`;
        return heading.result(r.request, `no paths match${hint}`);
      }
      const cut =
        r.paths.length < r.total
          ? `\n[cut: ${formatCount(r.paths.length)} of ${formatCount(r.total)} paths shown; narrow the mask to see the rest]`
          : '';
      return `${heading.result(r.request, counted(r.total, 'path'))}\n${r.paths.join('\n')}${cut}\n${heading.resultEnd}`;
    },
    dropped: (r, step) =>
      `[The ${formatCount(r.paths.length)} paths of ${r.request} were sent at step ${step} and dropped to fit the window; ask again if needed.]`,
  },
};
