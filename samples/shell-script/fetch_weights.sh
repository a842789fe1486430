#!/bin/bash
# Not a launcher: a directory scan reads every .sh file, and one that starts no engine gives nothing.
set -e
for repo in "$@"; do
  huggingface-cli download "$repo" --local-dir "/models/${repo##*/}" || { echo "failed: $repo" >&2; exit 1; }
done
