#!/bin/sh
# deepwork's launcher for Linux and macOS: pass a project folder (or drop it on this script in a file manager), or run
# it inside one from a terminal, and the pult for that folder opens in the default browser. Flags after the folder go
# to `deepwork ui` (--port 8788, --no-open). Finds deepwork by its own location, so it works from any folder.
set -eu
here=$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd)

# Which folder: the first argument that is not a flag; with none, the current folder, but only when run from a
# terminal: started from a file manager with nothing dropped, the current folder is the home folder or this one.
if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then
  project=$1
  shift
elif [ -t 0 ]; then
  project=$PWD
else
  # Started from a file manager with nothing dropped: the desktop's folder picker, when it has one (zenity on GNOME,
  # kdialog on KDE, AppleScript on macOS). Cancelled, or with no picker, it says what to do instead.
  title='deepwork: choose the project folder to open in the pult'
  project=''
  if command -v zenity >/dev/null 2>&1; then
    project=$(zenity --file-selection --directory --title="$title" 2>/dev/null || true)
  elif command -v kdialog >/dev/null 2>&1; then
    project=$(kdialog --getexistingdirectory "$HOME" --title "$title" 2>/dev/null || true)
  elif command -v osascript >/dev/null 2>&1; then
    project=$(osascript -e "POSIX path of (choose folder with prompt \"$title\")" 2>/dev/null || true)
  fi
  if [ -z "$project" ]; then
    echo "deepwork: give start-deepwork.sh a project folder (drop one on it); deepwork opens the pult for that folder." >&2
    exit 2
  fi
fi
if [ ! -d "$project" ]; then
  echo "deepwork: \"$project\" is not a folder. Pass a project folder." >&2
  exit 2
fi

# Node.js 20.10 or newer (package.json's engines): an older one would fail with a stack trace instead of this line. Found once, by its full path,
# before the cd into the project: a PATH with "." or an empty entry in it would find the project's own "node" there.
node=$(command -v node 2>/dev/null || true)
case $node in
  /*) ;;
  '')
    echo "deepwork needs Node.js 20.10 or newer: https://nodejs.org" >&2
    exit 1
    ;;
  *)
    echo "deepwork: PATH finds node as \"$node\", in the current folder; put the folder of Node.js itself in PATH instead." >&2
    exit 1
    ;;
esac
if ! "$node" -e "const [a, b] = process.versions.node.split('.').map(Number); process.exit(a > 20 || (a === 20 && b >= 10) ? 0 : 1)"; then
  echo "deepwork needs Node.js 20.10 or newer; this one is $("$node" --version). Install the current one from https://nodejs.org" >&2
  exit 1
fi
if [ ! -d "$here/node_modules" ]; then
  echo "deepwork: run \"npm install\" in \"$here\" first." >&2
  exit 1
fi

# The pult. When the configured port is taken by another program it takes the next free one by itself.
cd -- "$project"
echo "deepwork: the pult for \"$project\" runs while this launcher does; Ctrl+C stops it." >&2
exec "$node" "$here/bin/deepwork.js" ui "$@"
