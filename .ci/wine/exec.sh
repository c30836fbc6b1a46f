#!/bin/sh
# go test -exec for GOOS=windows: runs a test binary under the Wine that install.sh unpacked.
# Usage: GOOS=windows go test -exec "$PWD/.ci/wine/exec.sh" ./...
# Wine passes the environment and the exit code through; the binary's Unix path and the
# package folder (its working directory) appear to it as Z:\... paths.
exec "${E2E_HOME:?}/wine/wine" "$@"
