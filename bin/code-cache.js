// V8's code cache for the bundle: each of its CommonJS files is compiled from the code V8 kept of it the last time
// (`<file>.v8` beside it) rather than parsed again, which took about 20 ms of a run with no requests (issue 30). Node 20
// has no module.enableCompileCache, so the files are compiled here as Node's own loader would, through vm.Script with
// the cached data (the technique of the v8-compile-cache package). A cache that is missing, or that V8 refuses (another
// Node, other V8 flags) or that was kept of another version of the file, is written at the end of the run: then it
// holds every function the run compiled, not only the top level. Where the folder cannot be written (an install owned
// by another user), nothing is written and the files compile as before.

const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const vm = require('node:vm');

// A cache file starts with the file's size and modification time, so that a file changed in place (by hand, or a build
// that kept its name) is never run from the code of its previous text: V8 itself checks only the length.
const STAMP_BYTES = 16;

function stampOf(file) {
  const stat = fs.statSync(file);
  const stamp = Buffer.alloc(STAMP_BYTES);
  stamp.writeDoubleLE(stat.size, 0);
  stamp.writeDoubleLE(stat.mtimeMs, 8);
  return stamp;
}

// The cached code kept for this version of the file, or undefined.
function cachedCode(cacheFile, stamp) {
  let bytes;
  try {
    bytes = fs.readFileSync(cacheFile);
  } catch {
    return undefined;
  }
  return bytes.length > STAMP_BYTES && bytes.subarray(0, STAMP_BYTES).equals(stamp)
    ? bytes.subarray(STAMP_BYTES)
    : undefined;
}

// Writes each cache through a temp file and a rename, so that a run starting meanwhile reads the old one or the new
// one, never half. The first file that cannot be opened ends it: the folder is not writable.
function writeCaches(fresh) {
  for (const { script, cacheFile, stamp } of fresh) {
    const temp = `${cacheFile}.${process.pid}.tmp`;
    let fd;
    try {
      fd = fs.openSync(temp, 'wx');
    } catch {
      return;
    }
    try {
      fs.writeSync(fd, stamp);
      fs.writeSync(fd, script.createCachedData());
      fs.closeSync(fd);
      fd = undefined;
      fs.renameSync(temp, cacheFile);
    } catch {
      if (fd !== undefined) fs.closeSync(fd);
      fs.rmSync(temp, { force: true });
    }
  }
}

// Compiles every CommonJS file loaded from `dir` (not its subfolders) through the code cache from now on.
function useCodeCache(dir) {
  const prefix = `${dir}${path.sep}`;
  const compile = Module.prototype._compile;
  const fresh = [];
  Module.prototype._compile = function compileCached(content, filename) {
    if (!filename.startsWith(prefix) || filename.includes(path.sep, prefix.length)) {
      return compile.call(this, content, filename);
    }
    const cacheFile = `${filename}.v8`;
    const stamp = stampOf(filename);
    const cachedData = cachedCode(cacheFile, stamp);
    const script = new vm.Script(Module.wrap(content), { filename, cachedData });
    if (cachedData === undefined || script.cachedDataRejected === true) {
      if (fresh.length === 0) process.once('exit', () => writeCaches(fresh));
      fresh.push({ script, cacheFile, stamp });
    }
    const here = path.dirname(filename);
    // The bundle's own files (`./name.cjs`, beside this one) are loaded here without Node's resolution, which looked
    // for a package.json in every folder up from here and took the real path of each file again (3-5 ms a run); as in
    // Node, a file still loading gives what it has exported so far. Anything else goes through Node.
    const require = (id) => {
      if (!id.startsWith('./') || id.includes('/', 2)) return this.require(id);
      const file = path.join(here, id);
      const known = Module._cache[file];
      if (known !== undefined) return known.exports;
      const child = new Module(file, this);
      Module._cache[file] = child;
      let loaded = false;
      try {
        child.load(file);
        loaded = true;
      } finally {
        if (!loaded) delete Module._cache[file];
      }
      return child.exports;
    };
    require.resolve = (request, options) => Module._resolveFilename(request, this, false, options);
    require.cache = Module._cache;
    const wrapper = script.runInThisContext({ displayErrors: true });
    return wrapper.call(this.exports, this.exports, require, this, filename, here);
  };
}

module.exports = { useCodeCache };
