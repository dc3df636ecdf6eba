// A project folder's name in deepwork's state folder: its last run, its conversations, its pult's token.

import crypto from 'node:crypto';

export function folderKey(root: string): string {
  return crypto.createHash('sha256').update(root).digest('hex').slice(0, 16);
}
