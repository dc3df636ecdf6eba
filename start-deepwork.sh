#!/bin/sh
# Opens the deepwork pult for a project folder in the default browser: pass the folder (or drop it on this script
# in a file manager), or run it inside one. Finds deepwork by its own location, so it works from any folder.
# Flags after the folder go to `deepwork ui` (--port 8788, --no-open).
set -eu
here=$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd)
project=$PWD
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
  project=$1
  shift
fi
if [ ! -d "$project" ]; then
  echo "deepwork: \"$project\" is not a folder. Pass a project folder." >&2
  exit 2
fi
if ! command -v node >/dev/null 2>&1; then
  echo "deepwork needs Node.js 20 or newer: https://nodejs.org" >&2
  exit 1
fi
if [ ! -d "$here/node_modules" ]; then
  echo "deepwork: run \"npm install\" in \"$here\" first." >&2
  exit 1
fi
cd -- "$project"
exec node "$here/bin/deepwork.js" ui "$@"
