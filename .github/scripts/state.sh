#!/usr/bin/env bash
# The state the scheduled workflow (.github/workflows/digest.yml) keeps
# in the Actions cache between runs, encrypted when a key is set.
#
#   state.sh seal   after the run, before the cache is saved
#   state.sh open   after the cache is restored, before the run
#
# Both work in the current folder. The state is state.db and its
# write-ahead log state.db-wal: a cancelled run's last changes, the "sent"
# of the emails it mailed included, may be in the -wal alone.
#
# Why a key: in a public repository, workflows run for pull requests can
# restore the default branch's caches, and the state holds every feed URL,
# private feeds' tokens included. With STATE_KEY set (from a repository
# secret), seal packs state.db and state.db-wal into state.enc, encrypted
# with AES-256 under a key derived from STATE_KEY (openssl enc, PBKDF2),
# and removes them, so that the cache holds state.enc alone; open makes
# them again from state.enc. Without STATE_KEY, seal leaves the state as
# it is, and the cache holds it unencrypted.
#
# open never lets a run start from an empty state, which would mail again
# every digest already sent: a state.enc it cannot open, with a wrong key
# or none, fails it (exit 1), saying why and what to do.
set -euo pipefail

sealed=state.enc
# Spelled out, not left to openssl's defaults: a default that changed
# with its version would leave the saved state unopenable.
cipher=(-aes-256-cbc -pbkdf2 -iter 200000 -md sha256)
start_afresh="To start afresh on purpose instead, delete the feeddigest-state- caches (Actions > Caches)."

fail() {
  if [ "${GITHUB_ACTIONS:-}" = true ]; then
    echo "::error title=The state was not opened::$*" >&2
  else
    echo "state.sh: $*" >&2
  fi
  exit 1
}

seal() {
  if [ -z "${STATE_KEY:-}" ]; then
    echo "STATE_KEY is not set: the state is cached unencrypted"
    return
  fi
  if [ ! -f state.db ]; then
    echo "no state.db: nothing to seal" # a run that failed before it made one
    return
  fi
  local files=(state.db)
  if [ -f state.db-wal ]; then files+=(state.db-wal); fi
  tar -czf - "${files[@]}" |
    openssl enc -e "${cipher[@]}" -salt -pass env:STATE_KEY -out "$sealed.new"
  mv -f "$sealed.new" "$sealed"
  rm -f state.db state.db-wal state.db-shm
  echo "sealed ${files[*]} into $sealed"
}

open_state() {
  if [ ! -f "$sealed" ]; then
    if [ -n "${STATE_KEY:-}" ] && [ -f state.db ]; then
      echo "the cached state is not encrypted: it will be from this run on (STATE_KEY is set)"
    fi
    return
  fi
  if [ -z "${STATE_KEY:-}" ]; then
    fail "the cached state is encrypted ($sealed) and STATE_KEY is not set: set the repository secret STATE_KEY to the key it was saved with (Settings > Secrets and variables > Actions). The run does not start from an empty state, which would mail again every digest already sent. $start_afresh"
  fi
  tmp=$(mktemp -d ./.state-open.XXXXXX) # beside the state: its files are moved, not copied
  trap 'rm -rf "$tmp"' EXIT
  local why=""
  if ! openssl enc -d "${cipher[@]}" -pass env:STATE_KEY -in "$sealed" -out "$tmp/state.tgz" 2>"$tmp/openssl.err"; then
    why=$(head -n 1 "$tmp/openssl.err")
  elif ! tar -xzf "$tmp/state.tgz" -C "$tmp" 2>/dev/null || [ ! -f "$tmp/state.db" ]; then
    why="no state inside" # a wrong key whose padding happened to look right
  fi
  if [ -n "$why" ]; then
    fail "the cached state ($sealed) does not open with this STATE_KEY ($why): set the secret STATE_KEY back to the key the state was saved with. The run does not start from an empty state, which would mail again every digest already sent. $start_afresh"
  fi
  rm -f state.db state.db-wal state.db-shm
  mv "$tmp/state.db" state.db
  local files=(state.db)
  if [ -f "$tmp/state.db-wal" ]; then
    mv "$tmp/state.db-wal" state.db-wal
    files+=(state.db-wal)
  fi
  rm -f "$sealed"
  echo "opened $sealed: ${files[*]}"
}

case "${1:-}" in
seal) seal ;;
open) open_state ;;
*)
  echo "usage: state.sh seal|open (in the folder of state.db; STATE_KEY from the environment)" >&2
  exit 2
  ;;
esac
