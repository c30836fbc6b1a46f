#!/bin/sh
# go test -exec for GOOS=windows: runs a test binary under the Wine that install.sh unpacked.
# Usage: GOOS=windows go test -exec "$PWD/.ci/wine/exec.sh" ./...
# Wine passes the environment and the exit code through; the binary's Unix path and the
# package folder (its working directory) appear to it as Z:\... paths.
# The wineserver is started here, detached from the test's output: started by the test
# binary's wine it would inherit its stdout, and go test would wait for that pipe to close
# ("Test I/O incomplete ... after exiting") while the server lingers. An already running
# server makes this a no-op.
"${E2E_HOME:?}/wine/wineserver" -p30 </dev/null >/dev/null 2>&1 || true
exec "$E2E_HOME/wine/wine" "$@"
