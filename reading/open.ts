// How every file is opened for reading, by FIND and NEED alike.

import fs from 'node:fs';

// Non-blocking, so a file swapped for a FIFO cannot hang the read; no-follow, so a file swapped for a symlink since it
// was judged is not read through it (a symlinked file the walk accepted is read at its target).
export const READ_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0) | (fs.constants.O_NOFOLLOW ?? 0);
